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
// locked_until and last_error plus the old lock_token and last_error, and
// for both tables the writer: the writing session's MySQL user (USER(),
// without the host). A column the mapping leaves empty records NULL. The
// user says who wrote a row only when each instance slot connects as its
// own user (the runner gives them one where it may create users);
// AttributeWriters maps users to slots when the history is read. The trigger runs inside the
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
// dispatcher writes with NOW(6). The triggers record UTC: the record's time
// is UTC_TIMESTAMP(6) (the same instant as the statement's NOW(6)), and
// available_at and locked_until are converted from the writing session's
// time zone (CONVERT_TZ from @@session.time_zone), so a server running in
// +07:00, or a session that set its own zone, does not shift the history
// against the harness's clock; ReadTransitions reads them as UTC. A value a
// dispatcher wrote in another zone than its session's (application time
// formatted in the process's zone) is converted as if it were the
// session's, and lands hours off, as it does for the dispatcher's own
// comparisons with NOW(6). ScanFinal converts published_at and created_at
// from the reading session's zone, the server's global one. Temporal
// columns must be DATETIME or TIMESTAMP; InstallTriggers refuses other types
// rather than install a trigger that could fail the dispatcher's writes.
//
// Status words are mapped to canonical statuses through the mapping when
// read; a word the mapping does not know is kept as UnmappedPrefix+word.
//
// # Redis: RedisObserver
//
// Start turns on keyspace notifications (CONFIG SET notify-keyspace-events,
// adding K g h x e l z, and n for new keys where the server supports it: Redis
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
//     generated id went back: the stream was deleted or Redis lost it. A
//     stream found gone is read anew from "0" once it exists again.
//
// The reading, the sync and these checks are one streamReader, shared with
// the stream sinks' observer (below).
//
// A lost pub/sub connection is a Gap for the keyspace (notifications sent
// while disconnected are lost); the observer reconnects with a short
// backoff, resubscribes, and sets notify-keyspace-events again (a restarted
// Redis forgets it). go-redis may also reconnect and resubscribe on its own,
// when a PING finds the connection broken, so the loop may read no error at
// all: any resubscription counts as a lost connection. Stream reads resume
// from the last entry read; losing the connection alone loses no entries, a
// restart that loses data shows up as a reset above.
//
// Dating a keyspace gap. Every 100 ms the observer PINGs the pub/sub
// connection with the send time as payload; the PONG comes back in line with
// the notifications, so once the loop reads it, nothing sent before that time
// was lost. The Gap's time is the last such send time read (or the
// subscription), not the moment the loss is noticed, which may be much later:
// the loop may be working through a backlog while the server is down,
// restarted, and writing with its notifications off. Notes the loop records
// after the Gap's time, up to the moment it notices, are for notifications
// sent before the loss.
//
// Rescan after a gap. Once resubscribed and reconfigured, the observer SCANs
// every queue's job hashes (keys <prefix>:<q>:<id> as defined above, so
// <prefix>:<q>:ocdedupe:<id> and BullMQ's own keys are not among them; a
// key that is not a hash, or is gone when read, is skipped) and records a
// KeyNote "scan" with data, opts and data.jobId for each. Every job that
// exists after the gap thus has a read: a checker compares it with the read
// before the gap, and needs to doubt only a job that lived in the gap and
// was gone by the scan. A key written once notifications are back on is
// notified, one written before is scanned, so nothing falls between; notes
// for notifications queued during the scan are recorded after the scan's,
// so the first "scan" note after a Gap marks the end of what was missed. A
// queue that cannot be scanned is a keyspace Gap.
//
// Stop flushes: it drains the streams without blocking and waits for a PING
// sent on the pub/sub connection to come back, so every notification
// published before Stop is recorded. Start after Stop resumes the streams
// from where they were, records a keyspace Gap for the time it was off, and
// rescans the job hashes as after a reconnect.
//
// Checkpoint is Stop then Start: everything Redis sent so far is recorded,
// and the observer follows again. The nemesis checkpoints around a Redis
// restart it makes while no instance can reach Redis (a quiet restart):
// before the kill, so that every write is recorded, and after the server
// is back, so that the streams the restart took back are reported by then.
//
// # BullMQ's own deduplication
//
// An add with opts.deduplication (bullmq 5.x and 6.x) sets the key
// <prefix>:<q>:de:<id> NX, with a PX ttl when given, inside the add. Its name
// has a ':' after the queue, so it is never a job hash: its SET, its expiry
// and its deletion record no KeyNote, signal no creation, and neither the
// rescan nor ScanFinal lists it. An add turned away by a live key writes no
// hash and pushes nothing; it writes a "debounced" and a "deduplicated"
// stream entry (jobId: the job that holds the key; deduplicationId and
// deduplicatedJobId in Extra), recorded as they are and never counted as a
// creation, which only an "added" entry or a new job hash is
// (dedupe_test.go; the node-dedupe dialect shows it with the real bullmq).
//
// # Creation signal
//
// Subscribe gives live traps a direct signal of every job the observer
// sees come into being, without polling the recorder: a Creation (queue,
// BullMQ id, data.jobId when its data was read, what showed it, harness
// time). A job is signalled on its first sight, whichever comes first:
//   - a new job hash (keyspace "new"; source "hash"), its data read;
//   - an "added" entry of the queue's events stream (source "stream"), the
//     id only;
//   - an LPUSH or RPUSH into wait or paused, a ZADD into prioritized or
//     delayed (keyspace classes l and z; source the structure's name): the
//     observer reads the ids at the list's pushed end (deeper while every id
//     is unseen: one notification may stand for a script's batch) or the
//     sorted set (up to 4096 members), and each unseen id's data;
//   - a job hash found by the rescan after a gap (source "scan").
//
// It is signalled once more when a later sight reads the data.jobId the
// first lacked (a stream entry read before the hash), and again after its
// key is deleted and created anew. The push reads run only while someone
// subscribes. Creation.Jobs matches the job to ai_jobs ids by
// history.JobCandidates, the definition the I1 checker uses. The fan-out
// never blocks the observer: a subscriber whose buffer is full misses the
// signal, counted by Subscription.Dropped; size the buffer for bursts.
//
// # Stream and list sinks: SinkObserver
//
// A dispatcher that publishes to Redis streams or lists (harness/sink
// describes them and how a message id and job id are read) is followed by a
// SinkObserver instead, which records every message as a history.Append. It
// never consumes, trims or reorders what the dispatcher wrote, except that
// a list's elements are moved, as a consumer would take them.
//
// Streams. Each key is read from "0" with XREAD BLOCK and synced as the
// events streams are (above): an Append per entry (its id, the message id,
// the payload's jobId, the entry id's time), in the order read, a
// re-published message as often as it was added. A trim or a deletion
// before the reader saw entries, a stream gone, recreated or gone back is a
// Gap "sink:<key>" (SinkSource); a stream gone back (a restore from an
// older file) is read again from "0", and its Gap's Kept is the last id it
// still holds, so an entry read before with a later id is gone. With no
// keyspace subscription to report deletions, the reader keeps a marker on
// every stream: the consumer group StreamMarker, created with MKSTREAM by
// Start's first sync (so the stream exists from then on) and put back by
// every sync in the same MULTI that reads it. Nothing is ever read through the group. A stream without it was
// deleted since the last sync, even when the counts agree (entries added,
// the stream deleted and made anew with as many). Each sync's MULTI also
// reads INFO server (below).
//
// Lists. A mover per key takes the elements from the end the oldest is at
// (the right end for an LPUSHing dispatcher, sink.Config.Push) and moves
// them onto the right end of the harness's archive sink.Archive(key)
// ("oc:archive:<key>"), atomically (LMOVE in a script, up to 100 a turn, or
// BLMOVE waiting 100 ms on an empty list), so the archive holds them in push
// order and no element is lost between the two. Each moved element is an
// Append whose id counts the key's moves ("1", "2", ...), stamped with the
// harness's time of the move. The first Start empties the archives (they
// are the harness's own keys). The mover alone writes an archive, so its
// length says what was moved: each turn's script returns it, and elements
// beyond those recorded (a move whose reply was lost with the connection)
// are read from the archive and recorded first, in their order. An archive
// shorter than what was recorded lost data: a Gap whose Kept is the id of
// the last append the archive still holds. A Redis restart is watched as
// for streams.
//
// Restarts. Each sync or turn reads INFO server in its MULTI: a new
// run_id is a restart since the last one. A restart closes every
// connection, so a reader cannot tell by itself whether writes were lost
// around it. It is lossless when the restarted server writes every command
// to its append-only file before it replies (appendonly yes, appendfsync
// always: what a client saw acknowledged survived, and a blocked reader is
// served only after that write); otherwise, or when its configuration
// cannot be read, it is a Gap "sink:<key>" for every key. Losing the
// connection alone loses nothing: streams resume after the last entry
// read, lists are moved, never read.
//
// Stop drains what the keys hold without blocking (a list mover retries for
// up to 10 s, then records a Gap: elements may be unrecorded), and Start
// after Stop resumes where the observer was; Checkpoint is the two in one,
// as for the Redis observer. Every Append is also a Creation (source
// SourceSink, the sink key as the queue, the message id, else the
// payload's jobId, as the id) on first sight of that id, so the traps see
// sink messages as they see BullMQ jobs; Subscribe works as for the Redis
// observer.
//
// # Final scan
//
// ScanFinal reads, per queue, wait, paused and active (lists, every element
// in order, duplicates kept), prioritized, delayed, completed and failed
// (sorted sets, members), every job hash, and the outbox and jobs rows with
// canonical statuses.
//
// ScanSinkFinal, called after SinkObserver.Stop, returns what a stream or
// list sink holds that the observer did not record live (history.Final's
// Appends, marked Final): a stream's entries (XRANGE - +, paged) whose ids
// no live Append has, a list's elements still in the list, oldest first,
// numbered on from the mover's last id. It is a function of the server and
// the appends recorded, not of the observer's state, so the runner calls it
// beside ScanFinal. The archive is not scanned: every element moved into it
// was recorded (reconciled by its length) unless the mover's Stop recorded
// a Gap.
package observe
