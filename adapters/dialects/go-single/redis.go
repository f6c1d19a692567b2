package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// The global dispatch lock (seed 001's design): SET NX PX with a random
// token; released only by its holder, checked in one script.
var unlock = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

type heldLock struct {
	s     *single
	key   string
	token string
}

// lock waits for the dispatch lock until ctx ends or wait runs out; the
// lock expires after ttl even if its holder dies.
func (s *single) lock(ctx context.Context, ttl time.Duration) (*heldLock, error) {
	l := &heldLock{s: s, key: "outbox-dispatch-lock:" + s.c.Prefix, token: token()}
	deadline := time.Now().Add(s.c.AddTimeout)
	for {
		ok, err := s.rdb.SetNX(ctx, l.key, l.token, ttl).Result()
		if err != nil {
			return nil, fmt.Errorf("dispatch lock: %w", err)
		}
		if ok {
			return l, nil
		}
		if time.Now().After(deadline) {
			return nil, errors.New("dispatch lock: still held by another instance after " + s.c.AddTimeout.String())
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("dispatch lock: %w", ctx.Err())
		case <-time.After(3 * time.Millisecond):
		}
	}
}

func (l *heldLock) release() {
	ctx, cancel := context.WithTimeout(context.Background(), l.s.c.AddTimeout)
	defer cancel()
	if err := unlock.Run(ctx, l.s.rdb, []string{l.key}, l.token).Err(); err != nil {
		l.s.out.Printf("release dispatch lock: %v (it expires on its own)", err)
	}
}

// bullScript is BullMQ's add for a custom jobId, as docs/bullmq.md §2 lays
// it out: counter, maxLenEvents, duplicate check, hash, "added", wait or
// paused, marker unless held, "waiting". ARGV[5] = "overwrite" is the
// overwrite-job-data plant: an existing job's data and opts are rewritten.
// Beside BullMQ's keys, a per-queue ledger (a sorted set of jobIds scored
// by their add's time, trimmed to ARGV[7] ms) turns a re-add into a
// duplicate after a worker removed the job (removeOnComplete), which
// BullMQ's own check, on the hash alone, lets through.
//
//	KEYS 1 job  2 id  3 meta  4 events  5 wait  6 paused  7 marker  8 active  9 ledger
//	ARGV 1 jobId  2 name  3 data  4 opts  5 mode  6 timestamp  7 ledger span
var bullScript = redis.NewScript(`
redis.call('INCR', KEYS[2])
local n = tonumber(redis.call('HGET', KEYS[3], 'opts.maxLenEvents') or '0')
if n == 0 then
  n = 10000
  redis.call('HSET', KEYS[3], 'opts.maxLenEvents', n)
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[5] == 'overwrite' then redis.call('HSET', KEYS[1], 'data', ARGV[3], 'opts', ARGV[4]) end
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', n, '*', 'event', 'duplicated', 'jobId', ARGV[1])
  return 0
end
redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', tonumber(ARGV[6]) - tonumber(ARGV[7]))
if redis.call('ZSCORE', KEYS[9], ARGV[1]) then
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', n, '*', 'event', 'duplicated', 'jobId', ARGV[1])
  return 0
end
redis.call('HSET', KEYS[1], 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4], 'timestamp', ARGV[6], 'delay', 0, 'priority', 0)
redis.call('ZADD', KEYS[9], ARGV[6], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', n, '*', 'event', 'added', 'jobId', ARGV[1], 'name', ARGV[2])
local paused = redis.call('HGET', KEYS[3], 'paused')
local c = tonumber(redis.call('HGET', KEYS[3], 'concurrency') or '0')
local held = paused or (c > 0 and redis.call('LLEN', KEYS[8]) >= c)
redis.call('LPUSH', paused and KEYS[6] or KEYS[5], ARGV[1])
if not held then redis.call('ZADD', KEYS[7], 0, '0') end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', n, '*', 'event', 'waiting', 'jobId', ARGV[1])
return 1`)

// blindPush is the push-without-check plant: no existence check, so a
// re-add pushes the id on wait again. It still writes the "added" entry: a
// black box's crash window is trapped from the events stream, and the
// harness cannot see an add that writes none (the mutant writes none).
var blindPush = redis.NewScript(`
redis.call('HSET', KEYS[1], 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4], 'timestamp', ARGV[6], 'delay', 0, 'priority', 0)
redis.call('XADD', KEYS[4], 'MAXLEN', '~', 10000, '*', 'event', 'added', 'jobId', ARGV[1], 'name', ARGV[2])
redis.call('LPUSH', KEYS[5], ARGV[1])
redis.call('ZADD', KEYS[7], 0, '0')
return 1`)

// ledgerSpan is how long the ledger remembers an add: a week.
const ledgerSpan = 7 * 24 * time.Hour

func (s *single) bullAdd(ctx context.Context, e *claimed) error {
	k := s.c.Prefix + ":" + e.queue + ":"
	keys := []string{k + e.job, k + "id", k + "meta", k + "events", k + "wait", k + "paused", k + "marker", k + "active",
		"outbox-ledger:" + s.c.Prefix + ":" + e.queue}
	payload := map[string]string{"jobId": e.job}
	mode := "add"
	if s.c.Plant == plantOverwrite {
		payload["dispatchedBy"], mode = s.c.Me, "overwrite"
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	opts := fmt.Sprintf(`{"attempts":0,"delay":0,"jobId":%q}`, e.job)
	script := bullScript
	if s.c.Plant == plantBlindPush {
		script = blindPush
	}
	return script.Run(ctx, s.rdb, keys, e.job, "ai-job", string(data), opts, mode, time.Now().UnixMilli(), ledgerSpan.Milliseconds()).Err()
}
