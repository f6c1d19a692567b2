// Package bullmq adds BullMQ-compatible jobs to Redis for the reference
// dispatcher: a job with a custom id (the ai_jobs.id) lands exactly where a
// real BullMQ Queue.add({jobId}) would put it, so real BullMQ workers (5.x
// and 6.x) run it, and a real QueueEvents listener sees its events. The Lua
// (add.lua) is this project's own, written from observed facts about
// BullMQ's key layout; the compatibility tests drive the real npm packages.
//
// # Keys (prefix P, default "bull"; queue Q; job id J)
//
//	P:Q:id              string  INCR on every add, duplicates included
//	P:Q:meta            hash    opts.maxLenEvents (set to 10000 if missing);
//	                            paused, concurrency are read, never written
//	P:Q:J               hash    name, data (JSON), opts (JSON), timestamp
//	                            (ms, Redis server clock), delay 0, priority 0
//	P:Q:wait            list    LPUSH J (workers take from the right end)
//	P:Q:paused          list    LPUSH J instead of wait while meta.paused is set
//	P:Q:active          list    LLEN compared with meta.concurrency
//	P:Q:marker          zset    ZADD 0 "0" unless held; workers block on it
//	P:Q:events          stream  added / waiting / duplicated events,
//	                            XADD MAXLEN ~ opts.maxLenEvents
//	P:Q:ocdedupe:J      string  this project's dedupe record, value = add
//	                            time in ms, PX = DedupeHorizon
//
// The dedupe record cannot collide with a job hash: a legal job id never
// contains ':'. Observers following keyspace notifications for new job
// hashes must skip P:Q:ocdedupe:* (a string, not a hash).
//
// The opts JSON is {"jobId":J,"attempts":0,"delay":0} plus
// "removeOnComplete":true when Options.RemoveOnComplete is set; a BullMQ
// Queue.add({jobId}) stores {"jobId":J,"attempts":0}.
//
// # One add, step by step (add.lua, atomic)
//
//  0. Refuse an illegal id (empty, integer, contains ':') or horizon with an
//     error reply, before any write. Go refuses these before the round trip;
//     the Lua check is a second line of defence.
//  1. INCR P:Q:id; read opts.maxLenEvents from meta, setting 10000 if missing.
//  2. If P:Q:J exists: XADD "duplicated" and return Duplicate. Else if the
//     dedupe record exists (the consumer removed the job, e.g. with
//     removeOnComplete, within the horizon): XADD "duplicated" and return
//     Deduped. Either way nothing else is written or refreshed.
//  3. HSET the job hash with the server's TIME; XADD "added" (jobId, name).
//  4. Held if meta.paused is set, or meta.concurrency is set and
//     LLEN active >= it.
//  5. LPUSH the id on paused (when meta.paused) or wait; ZADD the marker
//     unless held.
//  6. XADD "waiting"; SET the dedupe record with PX = horizon; return Added.
//
// The dedupe record closes BullMQ's duplicate trap: BullMQ ignores a
// re-add only while the job hash exists, and removeOnComplete deletes it,
// so a crash between add and mark-published would otherwise run the job
// twice. The record makes such a re-add a no-op for DedupeHorizon.
//
// # Paused queues: why the paused list
//
// Read in the installed packages' dist/cjs/commands: bullmq 5.81.5 pushes to
// P:Q:paused while meta.paused is set (getTargetQueueList), its pause
// RENAMEs wait to paused and its resume RENAMEs paused back to wait (so a job
// pushed on wait during a v5 pause would be overwritten on resume). bullmq
// 6.7.0 always pushes to wait and pause only sets meta.paused, but its
// resume still moves a legacy P:Q:paused list into wait (RENAME, or RPUSH
// when wait exists), and its getCounts, getRanges, getState, drain,
// obliterate and remove all know the paused list. Pushing to the paused list
// while paused is therefore correct for both; pushing to wait is correct
// for v6 only. The compatibility test pauses a queue with each real
// version, adds with this package, resumes, and has a real Worker run it.
//
// # Round trips and errors
//
// Add sends a batch as ONE pipeline of EVALSHA, one per valid job (a
// Redis Cluster client splits it per node). Jobs that fail validation get
// ErrIllegalJobID or ErrInvalidJob and are never sent. A Redis error reply
// for one job is that job's Result.Err; a transport error, timeout or
// cancelled context makes Add return an error: the batch outcome is
// unknown and the caller retries it (safe: a re-add is a Duplicate or
// Deduped no-op). NOSCRIPT (Redis restarted or SCRIPT FLUSH): Add loads
// the script and sends the affected jobs once more, so the first batch
// after a restart costs three round trips. NewProducer itself does not
// touch Redis.
//
// Redis does not roll a script back when a command inside it fails (e.g.
// WRONGTYPE because a key was overwritten with another type); such a
// per-job error may leave the writes made before it.
package bullmq
