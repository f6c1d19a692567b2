// Package workload drives a run from the application's side: a Producer that
// commits outbox events the way an application would, and a Consumer that
// takes BullMQ jobs the way a worker would (SinkConsumer for a stream or
// list sink). Both record what they did in the run's history (Events and
// Takes), and both speak the dispatcher's own schema
// through a schema.Mapping, so a foreign schema works unchanged.
//
// # Producer
//
// Each event is one transaction holding the jobs row and the outbox row
// (Produce), or a few large transactions of multi-row INSERTs (ProduceBatch,
// for benchmarks and big runs; it ignores Rate). The outbox id must be
// assigned by the database (AUTO_INCREMENT); the producer records the id the
// database gave. The kind of each event is drawn from the seeded Rand with the
// Mix's weights, so the same seed gives the same sequence of kinds, queues and
// ids:
//
//	valid              jobs row (created) + outbox row, type ai.job.enqueue
//	unknown-type       jobs row (created) + outbox row with an unknown type
//	missing-job        outbox row only: aggregate_id names no jobs row
//	queue-not-allowed  jobs row naming DeniedQueue
//	illegal-job-id     jobs row whose id is all digits or contains ':'
//	already-queued     jobs row already queued: the dispatcher must close the
//	                   event as published without adding a job
//	long-error         jobs row naming LongQueue (64 ASCII characters)
//	multibyte-error    jobs row naming MultibyteQueue (64 characters of one
//	                   to four bytes): both queue-not-allowed events whose
//	                   reason, when it quotes the queue, overflows a narrow
//	                   last_error, and cut by bytes splits a character
//
// Legal ids read "j-<RunID>-<n>" (never all digits, never a ':'), so ids are
// unique across runs that share a database. Illegal ids read
// "j:<RunID>:<n>" or "<fnv32(RunID)><n as 10 digits>".
//
// # Aggregates (the ordering scenario)
//
// The contract's schema has one event per job: aggregate_id is the ai_jobs
// id, and the payload is {"jobId": "<id>"}. An ordering promise needs
// several events of one aggregate, and the fixed schema has no column for
// it, so with ProducerConfig.Aggregates = k the aggregate lives in the
// payload, as an extra field a dispatcher that ignores it never notices:
// {"jobId": "<id>", "aggregate": "a-<RunID>-<i>"}, event n in aggregate
// (n-1) mod k, every event of an aggregate on queue Queues[i mod len].
// Each event still has its own job. history.Event.Aggregate records it; a
// dispatcher reads it with JSON_VALUE(payload, '$.aggregate').
//
// # Consumer
//
// A simplified BullMQ worker with its own Lua. Each worker polls the queues in
// turn with BLMOVE <prefix>:<q>:wait -> <prefix>:<q>:active (right end to left
// end, 100 ms timeout), the way BullMQ workers take from the right end of the
// wait list. The marker key is not used. Then, per job:
//
//  1. activate (Lua): if the job hash exists, set processedOn, write an
//     "active" entry to the events stream, and return the hash's data. A hash
//     that is gone (removed on complete after an earlier take of the same id)
//     is NOT recreated: the take is recorded with empty data.
//  2. record a history.Take (JobID, and DataJobID parsed from data.jobId).
//  3. move the jobs row on, for the row named by data.jobId (or the BullMQ id
//     when data has none): to the word for running, then to the word for
//     succeeded, each only if the mapping has such a word. Each UPDATE is
//     fenced on the row still being in an earlier state:
//     running   WHERE status IN (created, queued words)
//     succeeded WHERE status IN (created, queued, running words)
//     A created row is moved on too: a worker may run a job before the
//     dispatcher's finalize commits (the crash window), as a real worker
//     would, and the contract tells dispatchers to treat a job past created
//     as dispatched. A row in any later or unknown state is never touched.
//  4. complete (Lua): LREM the id from active; with RemoveOnComplete DEL the
//     job hash as BullMQ's removeOnComplete does; otherwise set finishedOn and
//     ZADD the id to completed; write a "completed" entry to the events stream
//     (trimmed to the meta hash's opts.maxLenEvents, default 10000). Nothing is
//     added to completed for a job whose hash is gone.
//
// A job id pushed twice onto wait is taken, and recorded, twice: the I1
// checker counts exactly that. Redis and MySQL errors are retried with a short
// backoff (servers restart during scenarios); a job already taken is finished
// even when Run's context ends, so it is not left in active.
//
// # Sink consumer
//
// SinkConsumer is the consumer for a stream or list sink (harness/sink).
// Each message taken is recorded as a history.Take (Queue: the sink key,
// JobID: the message id, else the payload's jobId; DataJobID: the payload's
// jobId), then the jobs row it names (the jobId, else the message id) is
// moved on as above when the schema has a jobs table and LeaveRows is off,
// then the message is acknowledged.
//
//   - Streams: the consumer group StreamGroup ("outboxchaos"), created on
//     every stream from "0" with MKSTREAM when Run starts. Each worker reads
//     the streams in turn with XREADGROUP ">" (one entry, 100 ms wait) as its
//     own consumer, and XACKs each entry once processed. A group lost with
//     its stream (NOGROUP) is created again. A re-published message is
//     delivered, and taken, again.
//   - Lists: the observer's mover is the list's only reader (two readers
//     would split the messages), so the consumer takes what the mover put
//     in the archive, in order, each element once, by its index (an idle
//     archive is re-read every 50 ms). Nothing is acknowledged: the archive
//     stays as the mover wrote it. Start the observer before the consumer
//     (the observer's first Start empties the archive).
//
// Idle tells the drain whether the consumer has taken and finished all the
// sink holds.
package workload
