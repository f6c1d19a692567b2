package main

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// addLua adds one job the way a BullMQ Queue.add with a custom jobId does
// (docs/bullmq.md §2), plus a dispatch record that outlives the job hash.
//
//	KEYS: 1 job hash, 2 id counter, 3 wait, 4 paused, 5 meta, 6 marker,
//	      7 events stream, 8 active, 9 dispatch record
//	ARGV: 1 jobId, 2 name, 3 data, 4 opts, 5 timestamp ms, 6 record ttl ms
//
// It returns 1 for a new job and 0 for a duplicate, which changes nothing
// but the counter, the stream and (for a live hash) a "duplicated" entry.
const addLua = `
redis.call('INCR', KEYS[2])
local cap = redis.call('HGET', KEYS[5], 'opts.maxLenEvents')
if not cap then
  cap = '10000'
  redis.call('HSET', KEYS[5], 'opts.maxLenEvents', cap)
end
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[9]) == 1 then
  redis.call('XADD', KEYS[7], 'MAXLEN', '~', cap, '*', 'event', 'duplicated', 'jobId', ARGV[1])
  return 0
end
redis.call('HSET', KEYS[1], 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4],
  'timestamp', ARGV[5], 'delay', '0', 'priority', '0')
redis.call('SET', KEYS[9], '1', 'PX', ARGV[6])
redis.call('XADD', KEYS[7], 'MAXLEN', '~', cap, '*', 'event', 'added', 'jobId', ARGV[1], 'name', ARGV[2])
local paused = redis.call('HEXISTS', KEYS[5], 'paused') == 1
local held = paused
local limit = redis.call('HGET', KEYS[5], 'concurrency')
if limit and redis.call('LLEN', KEYS[8]) >= tonumber(limit) then held = true end
if paused then
  redis.call('LPUSH', KEYS[4], ARGV[1])
else
  redis.call('LPUSH', KEYS[3], ARGV[1])
end
if not held then redis.call('ZADD', KEYS[6], 0, '0') end
redis.call('XADD', KEYS[7], 'MAXLEN', '~', cap, '*', 'event', 'waiting', 'jobId', ARGV[1])
return 1
`

// noJobIDLua is the no-jobid plant: BullMQ's add without a custom jobId,
// so the job is named by the queue's id counter and nothing stops a re-add.
// ARGV[7] is the queue's key base; the other keys and arguments as addLua.
const noJobIDLua = `
local id = tostring(redis.call('INCR', KEYS[2]))
redis.call('HSET', ARGV[7] .. id, 'name', ARGV[2], 'data', ARGV[3], 'opts', '{"attempts":0,"delay":0}',
  'timestamp', ARGV[5], 'delay', '0', 'priority', '0')
redis.call('XADD', KEYS[7], 'MAXLEN', '~', '10000', '*', 'event', 'added', 'jobId', id, 'name', ARGV[2])
redis.call('LPUSH', KEYS[3], id)
redis.call('ZADD', KEYS[6], 0, '0')
redis.call('XADD', KEYS[7], 'MAXLEN', '~', '10000', '*', 'event', 'waiting', 'jobId', id)
return 1
`

// recordTTL is how long a dispatch record keeps a re-add a no-op after a
// worker removed the job (removeOnComplete): a week.
const recordTTL = 7 * 24 * time.Hour

// add sends every row that is to be added in one pipeline; each row's own
// reply decides its outcome.
func (d *dispatcher) add(parent context.Context, rows []*row) {
	ctx, cancel := context.WithTimeout(parent, d.s.publishTimeout)
	defer cancel()
	pipe := d.rdb.Pipeline()
	type sent struct {
		r   *row
		cmd interface{ Err() error }
	}
	var all []sent
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	script := addLua
	if d.s.plant == "no-jobid" {
		script = noJobIDLua
	}
	for _, r := range rows {
		if r.outcome != toAdd {
			continue
		}
		data, _ := json.Marshal(map[string]string{"jobId": r.jobID})
		opts, _ := json.Marshal(map[string]any{"jobId": r.jobID, "attempts": 0, "delay": 0})
		k := d.s.prefix + ":" + r.queue + ":"
		keys := []string{k + r.jobID, k + "id", k + "wait", k + "paused", k + "meta", k + "marker", k + "events", k + "active",
			"outbox-dispatched:" + d.s.prefix + ":" + r.queue + ":" + r.jobID}
		all = append(all, sent{r, pipe.Eval(ctx, script, keys, r.jobID, r.queue, string(data), string(opts), now, recordTTL.Milliseconds(), k)})
	}
	if len(all) == 0 {
		return
	}
	_, _ = pipe.Exec(ctx) // each command carries its own error
	for _, s := range all {
		if err := s.cmd.Err(); err != nil {
			s.r.outcome, s.r.reason = transient, "add job to "+s.r.queue+": "+err.Error()
			continue
		}
		s.r.outcome = publish
	}
}
