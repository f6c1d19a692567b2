package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// enqueue is this relay's BullMQ-compatible add of one job under a custom
// id, written from the facts of shared/bullmq-wire.md. An id whose job hash
// exists is a duplicate: a "duplicated" event and nothing else changes, so
// a re-publish after a crash is a no-op while the job is there. A new id
// gets its hash, an "added" event, the wait list (the paused list while the
// queue is paused), the marker unless the queue is paused or at its
// concurrency limit, and a "waiting" event. It returns 1 for an add and 0
// for a duplicate.
//
//	KEYS  job hash, id counter, meta, events, wait, paused, marker, active
//	ARGV  jobId, name, data, opts, timestamp (ms)
const enqueue = `
local job, counter, meta, events = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local wait, paused, marker, active = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local id = ARGV[1]
redis.call('INCR', counter)
local cap = tonumber(redis.call('HGET', meta, 'opts.maxLenEvents'))
if not cap then
  cap = 10000
  redis.call('HSET', meta, 'opts.maxLenEvents', cap)
end
local function note(...)
  redis.call('XADD', events, 'MAXLEN', '~', cap, '*', 'event', ...)
end
if redis.call('EXISTS', job) == 1 then
  note('duplicated', 'jobId', id)
  return 0
end
redis.call('HSET', job, 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4], 'timestamp', ARGV[5], 'delay', 0, 'priority', 0)
note('added', 'jobId', id, 'name', ARGV[2])
local isPaused = redis.call('HEXISTS', meta, 'paused') == 1
local limit = tonumber(redis.call('HGET', meta, 'concurrency'))
local full = limit ~= nil and redis.call('LLEN', active) >= limit
if isPaused then
  redis.call('LPUSH', paused, id)
else
  redis.call('LPUSH', wait, id)
  if not full then
    redis.call('ZADD', marker, 0, '0')
  end
end
note('waiting', 'jobId', id)
return 1
`

// jobName is the BullMQ job name of every message.
const jobName = "outbox-message"

// publisher adds messages to BullMQ, one job per message: jobId = the
// message's uuid, data = its payload, queue = its topic.
type publisher struct {
	rdb     *redis.Client
	script  *redis.Script
	prefix  string
	timeout time.Duration
}

func newPublisher(rdb *redis.Client, prefix string, timeout time.Duration) *publisher {
	return &publisher{rdb: rdb, script: redis.NewScript(enqueue), prefix: prefix, timeout: timeout}
}

// publish adds msgs in one pipeline within the publish timeout and returns
// how many of them, counted from the first, Redis took (added, or already
// there), with the error that stopped the rest. A server that lost the
// script (a restart) gets it again and the batch once more: every add is a
// no-op for the jobs already in.
func (p *publisher) publish(ctx context.Context, msgs []message) (int, error) {
	if len(msgs) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	n, err := p.pipeline(ctx, msgs, false)
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		n, err = p.pipeline(ctx, msgs, true)
	}
	return n, err
}

func (p *publisher) pipeline(ctx context.Context, msgs []message, withBody bool) (int, error) {
	pipe := p.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(msgs))
	for i, m := range msgs {
		keys, args := p.call(m)
		if withBody {
			cmds[i] = p.script.Eval(ctx, pipe, keys, args...)
		} else {
			cmds[i] = p.script.EvalSha(ctx, pipe, keys, args...)
		}
	}
	_, _ = pipe.Exec(ctx) // each command carries its own result
	for i, c := range cmds {
		if err := c.Err(); err != nil {
			return i, fmt.Errorf("add job %s to queue %s: %w", msgs[i].uuid, msgs[i].topic, err)
		}
	}
	return len(msgs), nil
}

// call is the script's keys and arguments for m.
func (p *publisher) call(m message) ([]string, []any) {
	base := p.prefix + ":" + m.topic + ":"
	keys := []string{base + m.uuid, base + "id", base + "meta", base + "events",
		base + "wait", base + "paused", base + "marker", base + "active"}
	opts, _ := json.Marshal(map[string]any{"jobId": m.uuid, "attempts": 1, "delay": 0})
	return keys, []any{m.uuid, jobName, m.payload, string(opts), time.Now().UnixMilli()}
}
