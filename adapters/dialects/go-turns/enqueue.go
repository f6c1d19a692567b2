package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// addJob adds one BullMQ job with a custom jobId, as BullMQ's own add does
// for a plain job (docs/bullmq.md): the id counter and
// opts.maxLenEvents first; an existing job, or one this relay added within
// the ledger's week, is a duplicate ("duplicated" entry, nothing else
// written, 0 returned); else the hash, the ledger entry, "added", the wait
// list (the paused list while paused), the marker unless the queue is
// paused or at its concurrency limit, and "waiting" (1 returned).
//
// The ledger is a sorted set of jobIds by add time, trimmed to the week on
// every add: BullMQ's jobId stops a re-add only while the job hash exists,
// and a worker with removeOnComplete deletes it.
//
//	KEYS  1 job hash  2 id counter  3 meta  4 events  5 wait  6 paused
//	      7 marker    8 active      9 ledger
//	ARGV  1 jobId  2 name  3 data  4 opts  5 now, ms  6 ledger window, ms
var addJob = redis.NewScript(`
local jobId, now = ARGV[1], tonumber(ARGV[5])
redis.call('INCR', KEYS[2])
local maxLen = redis.call('HGET', KEYS[3], 'opts.maxLenEvents')
if not maxLen then
  maxLen = '10000'
  redis.call('HSET', KEYS[3], 'opts.maxLenEvents', maxLen)
end
local function note(...)
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', maxLen, '*', ...)
end
redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', now - tonumber(ARGV[6]))
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('ZSCORE', KEYS[9], jobId) then
  note('event', 'duplicated', 'jobId', jobId)
  return 0
end
redis.call('HSET', KEYS[1], 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4],
  'timestamp', ARGV[5], 'delay', 0, 'priority', 0)
redis.call('ZADD', KEYS[9], now, jobId)
note('event', 'added', 'jobId', jobId, 'name', ARGV[2])
local paused = redis.call('HEXISTS', KEYS[3], 'paused') == 1
local limit = tonumber(redis.call('HGET', KEYS[3], 'concurrency'))
local full = limit ~= nil and redis.call('LLEN', KEYS[8]) >= limit
if paused then
  redis.call('LPUSH', KEYS[6], jobId)
else
  redis.call('LPUSH', KEYS[5], jobId)
  if not full then
    redis.call('ZADD', KEYS[7], 0, '0')
  end
end
note('event', 'waiting', 'jobId', jobId)
return 1
`)

// ledgerWindow is how long an add keeps a re-add of its jobId a duplicate
// after a worker removed the job: far past any retry or recovery.
const ledgerWindow = 7 * 24 * time.Hour

// addArgs are one event's keys and arguments for addJob.
func (d *dispatcher) addArgs(ev *event, now time.Time) ([]string, []any) {
	q := d.cfg.prefix + ":" + ev.queue + ":"
	keys := []string{q + ev.jobID, q + "id", q + "meta", q + "events", q + "wait", q + "paused",
		q + "marker", q + "active", "outbox-turns:" + d.cfg.prefix + ":" + ev.queue + ":ledger"}
	data, _ := json.Marshal(map[string]string{"jobId": ev.jobID})
	opts, _ := json.Marshal(map[string]any{"jobId": ev.jobID, "attempts": 1, "delay": 0})
	return keys, []any{ev.jobID, ev.kind, string(data), string(opts), now.UnixMilli(), ledgerWindow.Milliseconds()}
}

// enqueue adds the job of every undecided event in one pipeline, bounded
// by the queue operation timeout. A reply that is an error, or none, makes
// that event a transient failure; a Redis that lost the script (a restart)
// gets it again and the affected adds are sent once more.
func (d *dispatcher) enqueue(parent context.Context, evs []*event) {
	var todo []*event
	for _, ev := range evs {
		if ev.outcome == undecided {
			todo = append(todo, ev)
		}
	}
	if len(todo) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(parent, d.cfg.queueOpTimeout)
	defer cancel()
	again := d.pipelineAdds(ctx, todo)
	if len(again) > 0 {
		if err := addJob.Load(ctx, d.rdb).Err(); err != nil {
			retryAll(again, fmt.Errorf("load add script: %w", err))
			return
		}
		if again = d.pipelineAdds(ctx, again); len(again) > 0 {
			retryAll(again, fmt.Errorf("add script missing after load"))
		}
	}
}

// pipelineAdds sends one EVALSHA per event, decides each event by its
// reply, and returns the events whose reply was NOSCRIPT.
func (d *dispatcher) pipelineAdds(ctx context.Context, evs []*event) []*event {
	now := time.Now()
	pipe := d.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(evs))
	for i, ev := range evs {
		keys, args := d.addArgs(ev, now)
		cmds[i] = addJob.EvalSha(ctx, pipe, keys, args...)
	}
	_, _ = pipe.Exec(ctx) // each command keeps its own error
	var noScript []*event
	for i, ev := range evs {
		err := cmds[i].Err()
		switch {
		case err == nil:
			ev.outcome = publish
		case redis.HasErrorPrefix(err, "NOSCRIPT"):
			noScript = append(noScript, ev)
		default:
			ev.outcome, ev.reason = retry, fmt.Sprintf("add job to %s: %s", ev.queue, strings.TrimSpace(err.Error()))
		}
	}
	return noScript
}

func retryAll(evs []*event, err error) {
	for _, ev := range evs {
		ev.outcome, ev.reason = retry, err.Error()
	}
}
