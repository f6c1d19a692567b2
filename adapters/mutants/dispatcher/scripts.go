package dispatcher

import "github.com/redis/go-redis/v9"

// addNumericScript is a BullMQ add WITHOUT a custom jobId (no-jobid): the
// id is the queue's INCR counter. Otherwise it writes what an add writes
// (docs/bullmq.md §2): the hash, the added and waiting events, the id on wait
// (paused while meta.paused is set) and the marker.
//
//	KEYS: id counter, meta, wait, paused, marker, events
//	ARGV: key base "<prefix>:<queue>:", name, data, opts
//	returns: the new job's id
var addNumericScript = redis.NewScript(`
local id = tostring(redis.call("INCR", KEYS[1]))
local maxLen = tonumber(redis.call("HGET", KEYS[2], "opts.maxLenEvents"))
if not maxLen then
  maxLen = 10000
  redis.call("HSET", KEYS[2], "opts.maxLenEvents", maxLen)
end
local now = redis.call("TIME")
local ms = now[1] * 1000 + math.floor(now[2] / 1000)
redis.call("HSET", ARGV[1] .. id, "name", ARGV[2], "data", ARGV[3], "opts", ARGV[4],
  "timestamp", ms, "delay", 0, "priority", 0)
redis.call("XADD", KEYS[6], "MAXLEN", "~", maxLen, "*", "event", "added", "jobId", id, "name", ARGV[2])
if redis.call("HEXISTS", KEYS[2], "paused") == 1 then
  redis.call("LPUSH", KEYS[4], id)
else
  redis.call("LPUSH", KEYS[3], id)
  redis.call("ZADD", KEYS[5], 0, "0")
end
redis.call("XADD", KEYS[6], "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", id)
return id
`)

// blindPushScript writes the job hash and pushes its id on wait with no
// existence check and no stream event (push-without-check).
//
//	KEYS: job hash, wait, marker
//	ARGV: job id, name, data, opts
var blindPushScript = redis.NewScript(`
local now = redis.call("TIME")
local ms = now[1] * 1000 + math.floor(now[2] / 1000)
redis.call("HSET", KEYS[1], "name", ARGV[2], "data", ARGV[3], "opts", ARGV[4],
  "timestamp", ms, "delay", 0, "priority", 0)
redis.call("LPUSH", KEYS[2], ARGV[1])
redis.call("ZADD", KEYS[3], 0, "0")
return 1
`)
