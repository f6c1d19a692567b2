package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// publishLua adds one BullMQ job with a custom id, once. KEYS: the job hash,
// wait, paused, meta, id counter, events stream, marker, active, the sent
// record. ARGV: job id, name, data, opts, timestamp (ms), sent-record
// lifetime (ms), "1" to keep and consult the sent record.
//
// It returns "sent" when the sent record says the message went out before
// (its job may be gone since), "duplicate" when the job hash exists, and
// "added" otherwise.
const publishLua = `
local jobKey, waitKey, pausedKey, metaKey, idKey, eventsKey, markerKey, activeKey, sentKey =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local id, name, data, opts, ts, ttl, useSent = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7] == "1"
if useSent and redis.call("EXISTS", sentKey) == 1 then
  return "sent"
end
redis.call("INCR", idKey)
local maxLen = redis.call("HGET", metaKey, "opts.maxLenEvents")
if not maxLen then
  maxLen = "10000"
  redis.call("HSET", metaKey, "opts.maxLenEvents", maxLen)
end
local function mark()
  if useSent then
    redis.call("SET", sentKey, ts, "PX", ttl)
  end
end
if redis.call("EXISTS", jobKey) == 1 then
  redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "duplicated", "jobId", id)
  mark()
  return "duplicate"
end
redis.call("HSET", jobKey, "name", name, "data", data, "opts", opts, "timestamp", ts, "delay", "0", "priority", "0")
redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "added", "jobId", id, "name", name)
local paused = redis.call("HEXISTS", metaKey, "paused") == 1
local held = paused
local limit = tonumber(redis.call("HGET", metaKey, "concurrency") or "")
if limit and redis.call("LLEN", activeKey) >= limit then
  held = true
end
if paused then
  redis.call("LPUSH", pausedKey, id)
else
  redis.call("LPUSH", waitKey, id)
end
if not held then
  redis.call("ZADD", markerKey, 0, "0")
end
redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", id)
mark()
return "added"
`

// sink publishes messages as BullMQ jobs, jobId = the message id as a
// uuid text.
type sink struct {
	rdb    *redis.Client
	script *redis.Script
	cfg    config
}

// jobID is a 16-byte id in the 8-4-4-4-12 lower-case form.
func jobID(id []byte) string {
	h := hex.EncodeToString(id)
	if len(h) != 32 {
		return h
	}
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func (s *sink) key(topic, rest string) string { return s.cfg.prefix + ":" + topic + ":" + rest }

// sentKey is the sent record of a job: a string under the queue's keys with
// a ':' after the queue, so no BullMQ reader takes it for a job hash.
func (s *sink) sentKey(topic, id string) string { return s.key(topic, "relay-sent:"+id) }

// publish adds every message's job in one pipelined round trip, bounded by
// the publish timeout. errs[i] is nil when message i is out (added now, or
// before).
func (s *sink) publish(ctx context.Context, ms []message) []error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.publishTimeout)
	defer cancel()
	cmds := s.run(ctx, ms, false)
	if noScript(cmds) {
		cmds = s.run(ctx, ms, true) // the script cache was emptied (a Redis restart)
	}
	errs := make([]error, len(ms))
	for i, c := range cmds {
		if err := c.Err(); err != nil {
			errs[i] = fmt.Errorf("publish to %s: %w", ms[i].topic, err)
		}
	}
	return errs
}

// run sends one script call per message, by its hash or (load) its text.
func (s *sink) run(ctx context.Context, ms []message, load bool) []*redis.Cmd {
	pipe := s.rdb.Pipeline()
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	useSent := "1"
	if s.cfg.plant == plantJobIDOnly {
		useSent = "0"
	}
	ttl := strconv.FormatInt(s.cfg.sentTTL.Milliseconds(), 10)
	cmds := make([]*redis.Cmd, len(ms))
	for i, m := range ms {
		id, t := jobID(m.id), m.topic
		keys := []string{s.key(t, id), s.key(t, "wait"), s.key(t, "paused"), s.key(t, "meta"), s.key(t, "id"),
			s.key(t, "events"), s.key(t, "marker"), s.key(t, "active"), s.sentKey(t, id)}
		args := []any{id, t, m.payload, jobOpts(id), now, ttl, useSent}
		if load {
			cmds[i] = s.script.Eval(ctx, pipe, keys, args...)
		} else {
			cmds[i] = s.script.EvalSha(ctx, pipe, keys, args...)
		}
	}
	_, _ = pipe.Exec(ctx) // each command carries its own error
	return cmds
}

func jobOpts(id string) string {
	b, _ := json.Marshal(map[string]any{"jobId": id, "attempts": 1})
	return string(b)
}

func noScript(cmds []*redis.Cmd) bool {
	for _, c := range cmds {
		if err := c.Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			return true
		}
	}
	return false
}

// wereSent asks, in one round trip, whether each message went out (its
// sent record exists): sent[i] when Redis answered, errs[i] when it did
// not. The plant jobid-only keeps no sent record and asks for the job hash
// instead.
func (s *sink) wereSent(ctx context.Context, ms []message) (sent []bool, errs []error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.publishTimeout)
	defer cancel()
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.IntCmd, len(ms))
	keys := make([]string, len(ms))
	for i, m := range ms {
		keys[i] = s.sentKey(m.topic, jobID(m.id))
		if s.cfg.plant == plantJobIDOnly {
			keys[i] = s.key(m.topic, jobID(m.id))
		}
		cmds[i] = pipe.Exists(ctx, keys[i])
	}
	_, _ = pipe.Exec(ctx) // each command carries its own error
	sent, errs = make([]bool, len(ms)), make([]error, len(ms))
	for i, c := range cmds {
		n, err := c.Result()
		if err != nil {
			errs[i] = fmt.Errorf("look up %s: %w", keys[i], err)
		}
		sent[i] = n == 1
	}
	return sent, errs
}
