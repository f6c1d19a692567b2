// Package observe records the ground truth of a run from MySQL and Redis
// themselves, never from the dispatcher's logs. Observers connect directly to
// the servers, never through the fault proxy.
//
// # MySQL: triggers
//
// InstallTriggers creates the harness-owned table oc_history and AFTER
// INSERT, UPDATE and DELETE triggers on the outbox and jobs tables the
// mapping names. Each trigger appends one row: the table ("outbox" or
// "jobs"), the row id, the operation, NOW(6), the old and new status word,
// and for the outbox the new attempts, available_at, locked_by, lock_token,
// locked_until and last_error plus the old lock_token and last_error. A
// column the mapping leaves empty records NULL. The trigger runs inside the
// writer's transaction, so a rolled-back change leaves no row and a committed
// one always does.
//
// seq is AUTO_INCREMENT, allocated when the trigger runs, not at commit: a
// transaction that commits later may hold a lower seq than one already
// visible, and rollbacks leave holes. ReadTransitions(afterSeq) is exact once
// writers are quiet (the harness reads after drain); an incremental reader
// must re-read from an older seq and drop what it has seen.
//
// Times: NOW(6) is in the writing session's time zone, as are the values the
// dispatcher writes with NOW(6); ReadTransitions reads DATETIME values as
// UTC. Run the server (and the dispatcher's sessions) in UTC. Temporal
// columns must be DATETIME or TIMESTAMP; InstallTriggers refuses other types
// rather than install a trigger that could fail the dispatcher's writes.
//
// Status words are mapped to canonical statuses through the mapping when
// read; a word the mapping does not know is kept as UnmappedPrefix+word.
//
// # Redis: RedisObserver
//
// Start turns on keyspace notifications (CONFIG SET notify-keyspace-events,
// adding K g h x e, and n for new keys where the server supports it: Redis
// 7.0 and later) and subscribes to __keyspace@<db>__:<prefix>:<q>:* for each
// queue. A job hash is a key <prefix>:<q>:<id> whose id has no ':' and is not
// one of BullMQ's queue keys (wait, active, meta, events, ...). For job keys it
// records KeyNote "new" on creation with data, opts and data.jobId read right
// away, "hset"/"hdel" on later writes (re-read; the write that created the
// key is not recorded twice), and "del" on del, expiry, eviction or rename
// away. The notes carry values, not the fact of a write: a worker's writes
// (processedOn, finishedOn) leave data and opts as they were, and checkers
// compare values. Without the n class (Redis before 7.0) a key's creation is
// the first write to a key not known to exist (known keys are seeded by a
// SCAN at Start).
//
// It follows each queue's <prefix>:<q>:events stream with XREAD BLOCK from
// "0" and records every entry (event, jobId, name; other fields in Extra),
// stamped with the entry id's time. After each blocking read it syncs: in one
// MULTI it reads everything after the last entry read and takes XINFO STREAM.
// Entries are read in id order, so every entry added but not read is newer
// than the last one read; when that read returned everything the stream
// holds, entries-added minus entries read must be zero. It records a Gap when
//   - entries are missing that way: the stream was trimmed (XTRIM, MAXLEN)
//     or entries deleted before the reader saw them (Redis 7.0+; before
//     7.0, which has no entries-added, the oldest entry being newer than the
//     last one read counts as a possible gap);
//   - the key is gone, or entries-added fell below what was read, or the last
//     generated id went back: the stream was deleted or Redis lost it.
//
// A lost pub/sub connection is a Gap for the keyspace (notifications sent
// while disconnected are lost); the observer reconnects with a short
// backoff, resubscribes, and sets notify-keyspace-events again (a restarted
// Redis forgets it). Stream reads resume from the last entry read; losing
// the connection alone loses no entries, a restart that loses data shows up
// as a reset above.
//
// Stop flushes: it drains the streams without blocking and waits for a PING
// sent on the pub/sub connection to come back, so every notification
// published before Stop is recorded. Start after Stop resumes the streams
// from where they were and records a keyspace Gap for the time it was off.
//
// # Final scan
//
// ScanFinal reads, per queue, wait, paused and active (lists, every element
// in order, duplicates kept), prioritized, delayed, completed and failed
// (sorted sets, members), every job hash, and the outbox and jobs rows with
// canonical statuses.
package observe
