// Command go-timestamps is a dialect relay (issue 22) whose outbox has no
// status column: where a message is comes from timestamps and counters, as
// in the PostgreSQL outbox libraries of npm that keep locked_until,
// processed_at, abandoned_at and two attempt counters (its own code, on
// MySQL). It publishes to Redis Streams and promises at-least-once
// delivery. There is no jobs table: the outbox row is the message.
//
// # The row (schema.sql)
//
//	id                 CHAR(36) uuid, written by the producer; also the message id
//	topic              the stream the message goes to (one of OUTBOX_QUEUES)
//	payload            JSON, published as is
//	locked_until       DATETIME(6), default 1970-01-01 00:00:01: a claim's lease end,
//	                   and after a failed attempt the time of the next try
//	processed_at       set once the message is on its stream: published
//	abandoned_at       set when the relay gives up: failed for good
//	started_attempts   +1 at every claim; the claim's fence
//	finished_attempts  +1 when an attempt ends (published, failed or abandoned)
//
// A row is due when processed_at and abandoned_at are NULL and locked_until
// < NOW(6), on the database clock. A due row with started_attempts ahead of
// finished_attempts was claimed by a relay that never finished (it died, or
// its lease ran out).
//
// The lease column doubles as the next-try time, as that library's design
// does: a failed attempt writes locked_until = NOW(6) + backoff, so a row
// waiting out its backoff looks exactly like a row a relay holds. The
// manifest's claimed predicate (locked_until > NOW(6), neither timestamp
// set) is true through the backoff too. The harness therefore reads a
// failed attempt as the claim extended to the backoff's end, and the next
// claim as a takeover (one more started attempt); with no available_at it
// has no backoff to judge (I6 is not applicable).
//
// # A pass
//
//  1. Claim, in one READ COMMITTED transaction: SELECT id, topic, payload,
//     started_attempts of due rows ORDER BY created_at LIMIT batch FOR
//     UPDATE SKIP LOCKED, then UPDATE those rows' locked_until = NOW(6) +
//     lease and started_attempts + 1. The claim's fence is that count.
//  2. Publish: one pipeline of XADD <topic> * outbox_id <uuid> data
//     <payload>, bounded by the publish timeout, no client retries.
//  3. Settle, in one transaction, every write fenced by WHERE
//     started_attempts = <the claim's count> AND processed_at IS NULL AND
//     abandoned_at IS NULL: appended rows get processed_at = NOW(6) and a
//     finished attempt; a failed XADD a finished attempt and locked_until =
//     NOW(6) + backoff (base doubled per attempt, capped, less up to a
//     quarter of jitter), or at the last attempt abandoned_at = NOW(6). A
//     topic outside OUTBOX_QUEUES is abandoned at once. A relay whose lease
//     ran out and was taken over writes nothing.
//
// The whole pass runs within one lease. Lease recovery is the claim
// itself: a row whose lease ran out is due again.
//
// # Delivery
//
// At-least-once. A crash (or a lost settle) between the XADD and
// processed_at leaves the row due after its lease, and the next claim
// publishes it again under the same message id (the row's uuid): the
// consumer drops the duplicate by that id. A zombie relay that wakes after
// its lease may append once more, under the same id; its settle is fenced
// out.
//
// SIGTERM: the pass under way is finished (published and settled), then
// the relay exits 0, holding nothing. Configuration errors exit 2 with one
// line naming the variable.
//
// # Planted bugs
//
// Chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml each):
//
//	recovery-ignores-processed  the claim's WHERE forgets processed_at IS NULL: a published
//	                            row is claimed again once its lease runs out, and published
//	                            again (I5: a finalized row written again; the re-publish
//	                            carries the same id, a duplicate at-least-once allows)
//	new-id-on-republish         a message claimed before (started_attempts > 1) goes out
//	                            under a fresh uuid, so a re-publish after a crash carries a
//	                            second message id (I1, crash-window)
package main
