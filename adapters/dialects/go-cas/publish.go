package main

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// addScript is this dialect's BullMQ-compatible add for one custom jobId:
// an existing hash, or a sent mark left by an earlier add, is a duplicate (a
// "duplicated" entry, nothing else changes); a new one gets its hash, its
// sent mark, an "added" entry, the wait list (paused list in v5 while
// paused), the marker and a "waiting" entry. The sent mark
// (cas-sent:<p>:<q>:<jobId>, kept sentMarkTTL) outlives the hash, which a
// worker deletes with removeOnComplete: BullMQ's jobId alone stops a re-add
// only while the hash exists.
//
//	KEYS[1] <p>:<q>:   the queue's key base    ARGV[1] jobId   ARGV[2] data
//	                                           ARGV[3] opts    ARGV[4] ms
//	                                           ARGV[5] sent mark ttl, ms
const addScript = `
local base, id = KEYS[1], ARGV[1]
local job = base .. id
local mark = 'cas-sent:' .. base .. id
redis.call('INCR', base .. 'id')
local maxlen = redis.call('HGET', base .. 'meta', 'opts.maxLenEvents')
if not maxlen then
  maxlen = 10000
  redis.call('HSET', base .. 'meta', 'opts.maxLenEvents', maxlen)
end
local events = base .. 'events'
if redis.call('EXISTS', job) == 1 or redis.call('EXISTS', mark) == 1 then
  redis.call('XADD', events, 'MAXLEN', '~', maxlen, '*', 'event', 'duplicated', 'jobId', id)
  return 'duplicate'
end
redis.call('HSET', job, 'name', 'dispatch', 'data', ARGV[2], 'opts', ARGV[3], 'timestamp', ARGV[4], 'delay', 0, 'priority', 0)
redis.call('SET', mark, '1', 'PX', ARGV[5])
redis.call('XADD', events, 'MAXLEN', '~', maxlen, '*', 'event', 'added', 'jobId', id, 'name', 'dispatch')
if redis.call('HEXISTS', base .. 'meta', 'paused') == 1 then
  redis.call('LPUSH', base .. 'paused', id)
else
  redis.call('LPUSH', base .. 'wait', id)
  redis.call('ZADD', base .. 'marker', 0, '0')
end
redis.call('XADD', events, 'MAXLEN', '~', maxlen, '*', 'event', 'waiting', 'jobId', id)
return 'added'
`

// sentMarkTTL is how long an add's sent mark keeps a re-add of the same
// jobId a no-op after the job itself was removed: a week, far past any
// retry or recovery of the event.
const sentMarkTTL = 7 * 24 * time.Hour

// publish adds the job of every item still without a verdict, one script
// call each, sequentially within the publish timeout.
func (e *engine) publish(parent context.Context, items []*item) {
	ctx, cancel := context.WithTimeout(parent, e.o.publishTimeout)
	defer cancel()
	for _, it := range items {
		if it.Verdict != "" {
			continue
		}
		data, _ := json.Marshal(map[string]string{"jobId": it.Job})
		opts, _ := json.Marshal(struct {
			JobID    string `json:"jobId"`
			Attempts int    `json:"attempts"`
			Delay    int    `json:"delay"`
		}{it.Job, 0, 0})
		base := e.o.prefix + ":" + it.Queue + ":"
		err := e.add.Run(ctx, e.rdb, []string{base}, it.Job, string(data), string(opts), time.Now().UnixMilli(), sentMarkTTL.Milliseconds()).Err()
		if err != nil {
			it.Verdict, it.Why = "retry", "BullMQ add to "+it.Queue+": "+strings.TrimSpace(err.Error())
			continue
		}
		it.Verdict = "publish"
	}
}
