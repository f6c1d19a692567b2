package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// addJob is this relay's BullMQ add, one atomic script per job (written
// from docs/bullmq.md §2). KEYS: wait, paused, meta, id counter, events,
// marker, active of the queue. ARGV: the queue's key prefix ("bull:q:"),
// the jobId ("" lets the counter name the job, as BullMQ does without a
// custom id), name, data, opts, timestamp in ms.
//
// It returns the job's id and "new" when it wrote the job, or "dup" when a
// job hash of that id was there already (the add then only logs a
// "duplicated" event and leaves the job as it is).
const addJob = `
local waitK, pausedK, metaK, idK, eventsK, markerK, activeK =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local base, jobId, name, data, opts, ts = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local counter = redis.call("INCR", idK)
if jobId == "" then
  jobId = tostring(counter)
end
local trim = redis.call("HGET", metaK, "opts.maxLenEvents")
if not trim then
  trim = "10000"
  redis.call("HSET", metaK, "opts.maxLenEvents", trim)
end
local jobK = base .. jobId
if redis.call("EXISTS", jobK) == 1 then
  redis.call("XADD", eventsK, "MAXLEN", "~", trim, "*", "event", "duplicated", "jobId", jobId)
  return {jobId, "dup"}
end
redis.call("HSET", jobK, "name", name, "data", data, "opts", opts, "timestamp", ts, "delay", "0", "priority", "0")
redis.call("XADD", eventsK, "MAXLEN", "~", trim, "*", "event", "added", "jobId", jobId, "name", name)
local paused = redis.call("HEXISTS", metaK, "paused") == 1
local busy = false
local limit = tonumber(redis.call("HGET", metaK, "concurrency") or "")
if limit ~= nil and redis.call("LLEN", activeK) >= limit then
  busy = true
end
if paused then
  redis.call("LPUSH", pausedK, jobId)
else
  redis.call("LPUSH", waitK, jobId)
end
if not paused and not busy then
  redis.call("ZADD", markerK, 0, "0")
end
redis.call("XADD", eventsK, "MAXLEN", "~", trim, "*", "event", "waiting", "jobId", jobId)
return {jobId, "new"}
`

// queueClient adds jobs to BullMQ queues.
type queueClient struct {
	rdb    *redis.Client
	script *redis.Script
	s      settings
}

func openQueues(s settings) (*queueClient, error) {
	o, err := redis.ParseURL(s.redis)
	if err != nil {
		return nil, fmt.Errorf("OUTBOX_REDIS_URL: %w", err)
	}
	// Every wait is bounded by the publish timeout, and a failed command
	// is not sent again behind the relay's back: a retry is an attempt.
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = s.publishWait, s.publishWait, s.publishWait
	o.ContextTimeoutEnabled = true
	o.MaxRetries = -1
	o.PoolSize = 3
	return &queueClient{rdb: redis.NewClient(o), script: redis.NewScript(addJob), s: s}, nil
}

func (q *queueClient) key(queue string) string { return q.s.prefix + ":" + queue + ":" }

// jobIDOf is the BullMQ jobId a row is added under: its message_id, the
// same on every attempt, so a re-add finds the job there (while the
// consumer keeps it). The plant no-jobid lets BullMQ's counter pick one.
func (q *queueClient) jobIDOf(r row) string {
	if q.s.bug == bugNoJobID {
		return ""
	}
	return r.messageID
}

// add adds one job per row, pipelined in one round trip bounded by the
// publish timeout; errs[i] is nil when row i's job is in Redis (added now,
// or found there).
func (q *queueClient) add(ctx context.Context, rows []row) []error {
	ctx, cancel := context.WithTimeout(ctx, q.s.publishWait)
	defer cancel()
	cmds := q.send(ctx, rows, false)
	if scriptMissing(cmds) {
		cmds = q.send(ctx, rows, true) // Redis restarted and lost its script cache
	}
	errs := make([]error, len(rows))
	for i, c := range cmds {
		if err := c.Err(); err != nil {
			errs[i] = fmt.Errorf("add to %s: %w", rows[i].queue, err)
		}
	}
	return errs
}

func (q *queueClient) send(ctx context.Context, rows []row, withText bool) []*redis.Cmd {
	pipe := q.rdb.Pipeline()
	ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
	cmds := make([]*redis.Cmd, len(rows))
	for i, r := range rows {
		k := q.key(r.queue)
		keys := []string{k + "wait", k + "paused", k + "meta", k + "id", k + "events", k + "marker", k + "active"}
		id := q.jobIDOf(r)
		args := []any{k, id, "outbox-message", r.payload, jobOptions(id), ts}
		if withText {
			cmds[i] = q.script.Eval(ctx, pipe, keys, args...)
		} else {
			cmds[i] = q.script.EvalSha(ctx, pipe, keys, args...)
		}
	}
	_, _ = pipe.Exec(ctx) // each command keeps its own error
	return cmds
}

func jobOptions(id string) string {
	o := map[string]any{"attempts": 1}
	if id != "" {
		o["jobId"] = id
	}
	b, _ := json.Marshal(o)
	return string(b)
}

func scriptMissing(cmds []*redis.Cmd) bool {
	for _, c := range cmds {
		if err := c.Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			return true
		}
	}
	return false
}

// present asks whether each row's job hash is in Redis (a last attempt
// whose reply was lost may have added it): found[i], or errs[i] when Redis
// did not answer.
func (q *queueClient) present(ctx context.Context, rows []row) (found []bool, errs []error) {
	ctx, cancel := context.WithTimeout(ctx, q.s.publishWait)
	defer cancel()
	pipe := q.rdb.Pipeline()
	cmds := make([]*redis.IntCmd, len(rows))
	for i, r := range rows {
		cmds[i] = pipe.Exists(ctx, q.key(r.queue)+r.messageID)
	}
	_, _ = pipe.Exec(ctx)
	found, errs = make([]bool, len(rows)), make([]error, len(rows))
	for i, c := range cmds {
		n, err := c.Result()
		found[i], errs[i] = n == 1, err
	}
	return found, errs
}
