-- outboxchaos: add one BullMQ job with a custom id, unless it exists or was
-- added within the dedupe horizon. Written for this project from the key
-- layout facts in doc.go; not derived from BullMQ's own scripts.
--
-- KEYS[1] id counter      KEYS[2] meta hash        KEYS[3] job hash
-- KEYS[4] dedupe record   KEYS[5] active list      KEYS[6] wait list
-- KEYS[7] paused list     KEYS[8] marker zset      KEYS[9] events stream
-- ARGV[1] job id  ARGV[2] job name  ARGV[3] data (JSON)  ARGV[4] opts (JSON)
-- ARGV[5] dedupe horizon in milliseconds
--
-- Returns 1 (added), 2 (duplicate: job hash exists), 3 (deduped: the job
-- hash is gone but the dedupe record is alive). Refuses an illegal id or
-- horizon with an error reply before any write.

local call = redis.call
local jobId = ARGV[1]

if jobId == "" or string.find(jobId, ":", 1, true) or string.find(jobId, "^%-?%d+$") then
  return redis.error_reply("ILLEGALJOBID '" .. jobId .. "' is not a legal BullMQ custom job id")
end
local horizonMs = tonumber(ARGV[5])
if not horizonMs or horizonMs < 1 then
  return redis.error_reply("ERR dedupe horizon must be a positive number of milliseconds, got '" .. ARGV[5] .. "'")
end

-- 1. Counter and event-stream length, as every BullMQ add does.
call("INCR", KEYS[1])
local maxEvents = call("HGET", KEYS[2], "opts.maxLenEvents")
if not maxEvents then
  maxEvents = "10000"
  call("HSET", KEYS[2], "opts.maxLenEvents", maxEvents)
end

local function emit(...)
  call("XADD", KEYS[9], "MAXLEN", "~", maxEvents, "*", "event", ...)
end

-- 2. An existing job, or one added within the horizon: change nothing else.
local outcome = 0
if call("EXISTS", KEYS[3]) == 1 then
  outcome = 2
elseif call("EXISTS", KEYS[4]) == 1 then
  outcome = 3
end
if outcome ~= 0 then
  emit("duplicated", "jobId", jobId)
  return outcome
end

-- 3. The job hash, stamped with the server clock, and its 'added' event.
local now = call("TIME")
local nowMs = string.format("%d", tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
call("HSET", KEYS[3], "name", ARGV[2], "data", ARGV[3], "opts", ARGV[4],
  "timestamp", nowMs, "delay", "0", "priority", "0")
emit("added", "jobId", jobId, "name", ARGV[2])

-- 4. Held while paused, or while the global concurrency limit is reached.
local meta = call("HMGET", KEYS[2], "paused", "concurrency")
local target = KEYS[6]
local held = false
if meta[1] then
  target = KEYS[7]
  held = true
elseif meta[2] then
  local limit = tonumber(meta[2])
  held = limit ~= nil and call("LLEN", KEYS[5]) >= limit
end

-- 5. Queue it; wake blocked workers unless held.
call("LPUSH", target, jobId)
if not held then
  call("ZADD", KEYS[8], 0, "0")
end

-- 6. The 'waiting' event and the dedupe record.
emit("waiting", "jobId", jobId)
call("SET", KEYS[4], nowMs, "PX", horizonMs)
return 1
