package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// addJob adds one BullMQ job under a custom id, atomically, as
// docs/bullmq.md describes an add: the id counter always moves; an id whose
// hash exists only gets a "duplicated" event (a re-publish is a no-op while
// the job is there); a new id gets its hash, an "added" event, a place on
// the wait list (the paused list while meta says paused), the marker
// unless the queue is paused or at its concurrency limit, and a "waiting"
// event. It returns 1 when it created the job, 0 for a duplicate.
//
//	KEYS  job hash, meta, id counter, events, wait, paused, active, marker
//	ARGV  jobId, name, data, opts, timestamp (ms)
const addJob = `
local jobKey, metaKey, idKey, eventsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local waitKey, pausedKey, activeKey, markerKey = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local jobId = ARGV[1]

redis.call('INCR', idKey)
local maxEvents = tonumber(redis.call('HGET', metaKey, 'opts.maxLenEvents'))
if maxEvents == nil then
  maxEvents = 10000
  redis.call('HSET', metaKey, 'opts.maxLenEvents', maxEvents)
end

local function emit(kind, ...)
  redis.call('XADD', eventsKey, 'MAXLEN', '~', maxEvents, '*', 'event', kind, 'jobId', jobId, ...)
end

if redis.call('EXISTS', jobKey) == 1 then
  emit('duplicated')
  return 0
end

redis.call('HSET', jobKey, 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4],
  'timestamp', ARGV[5], 'delay', 0, 'priority', 0)
emit('added', 'name', ARGV[2])

local paused = redis.call('HEXISTS', metaKey, 'paused') == 1
local target = waitKey
if paused then target = pausedKey end
redis.call('LPUSH', target, jobId)

local held = paused
if not held then
  local limit = tonumber(redis.call('HGET', metaKey, 'concurrency'))
  held = limit ~= nil and redis.call('LLEN', activeKey) >= limit
end
if not held then
  redis.call('ZADD', markerKey, 0, '0')
end
emit('waiting')
return 1
`

// jobName is the BullMQ name of every job the relay adds.
const jobName = "outbox-message"

// publisher adds messages to BullMQ: one job per message, jobId = the
// message's uuid, data = its payload, queue = its topic.
type publisher struct {
	rdb     *redis.Client
	script  *redis.Script
	prefix  string
	timeout time.Duration
}

func newPublisher(rdb *redis.Client, prefix string, timeout time.Duration) *publisher {
	return &publisher{rdb: rdb, script: redis.NewScript(addJob), prefix: prefix, timeout: timeout}
}

// publish sends the adds of msgs in one pipeline, bounded by the publish
// timeout, and returns how many of them, counted from the first, Redis
// took (created or already there), with the error that stopped the rest.
// When Redis lost the script (a restart) the whole batch goes again with
// the script's body: the adds it already took are duplicates, no-ops.
func (p *publisher) publish(ctx context.Context, msgs []message) (int, error) {
	if len(msgs) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	n, err := p.send(ctx, msgs, p.script.EvalSha)
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		n, err = p.send(ctx, msgs, p.script.Eval)
	}
	return n, err
}

type evalFunc func(ctx context.Context, c redis.Scripter, keys []string, args ...any) *redis.Cmd

func (p *publisher) send(ctx context.Context, msgs []message, eval evalFunc) (int, error) {
	pipe := p.rdb.Pipeline()
	cmds := make([]*redis.Cmd, 0, len(msgs))
	for _, m := range msgs {
		keys, args := p.addArgs(m)
		cmds = append(cmds, eval(ctx, pipe, keys, args...))
	}
	_, _ = pipe.Exec(ctx) // each command keeps its own result
	for i, c := range cmds {
		if err := c.Err(); err != nil {
			return i, fmt.Errorf("add job %s to queue %s: %w", msgs[i].uuid, msgs[i].topic, err)
		}
	}
	return len(msgs), nil
}

// addArgs are the script's keys and arguments for m.
func (p *publisher) addArgs(m message) ([]string, []any) {
	q := p.prefix + ":" + m.topic + ":"
	keys := []string{q + m.uuid, q + "meta", q + "id", q + "events", q + "wait", q + "paused", q + "active", q + "marker"}
	opts, _ := json.Marshal(struct {
		JobID    string `json:"jobId"`
		Attempts int    `json:"attempts"`
		Delay    int    `json:"delay"`
	}{m.uuid, 1, 0})
	return keys, []any{m.uuid, jobName, m.payload, string(opts), time.Now().UnixMilli()}
}
