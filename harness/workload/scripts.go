package workload

import "github.com/redis/go-redis/v9"

// eventsTrim is the Lua that reads the stream trim length the way BullMQ
// does: the meta hash's opts.maxLenEvents, 10000 when unset.
const eventsTrim = `local maxLen = tonumber(redis.call("HGET", KEYS[3], "opts.maxLenEvents")) or 10000
`

// activateScript marks a taken job as processing and returns its data.
//
//	KEYS: job hash, events stream, meta hash
//	ARGV: job id, now in ms
//	returns: the data field ("" when unset), or nil when the hash is gone
//	(it is not recreated).
var activateScript = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 0 then
  return false
end
redis.call("HSET", KEYS[1], "processedOn", ARGV[2])
` + eventsTrim + `
redis.call("XADD", KEYS[2], "MAXLEN", "~", maxLen, "*", "event", "active", "jobId", ARGV[1], "prev", "waiting")
return redis.call("HGET", KEYS[1], "data") or ""
`)

// completeScript finishes a job taken into active.
//
//	KEYS: job hash, events stream, meta hash, active list, completed zset
//	ARGV: job id, now in ms, "1" to remove the job hash on complete
//	returns: 1 when a job hash was completed, 0 when it was gone.
var completeScript = redis.NewScript(`
redis.call("LREM", KEYS[4], -1, ARGV[1])
if redis.call("EXISTS", KEYS[1]) == 0 then
  return 0
end
if ARGV[3] == "1" then
  redis.call("DEL", KEYS[1])
else
  redis.call("HSET", KEYS[1], "finishedOn", ARGV[2], "returnvalue", "null")
  redis.call("ZADD", KEYS[5], ARGV[2], ARGV[1])
end
` + eventsTrim + `
redis.call("XADD", KEYS[2], "MAXLEN", "~", maxLen, "*", "event", "completed", "jobId", ARGV[1], "returnvalue", "null")
return 1
`)
