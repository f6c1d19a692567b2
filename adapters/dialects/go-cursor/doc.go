// Command go-cursor is a dialect relay written on its own in the shape of
// the MySQL adapter of a widely used Go messaging library: an append-only
// message log and a consumer group's offset. It is no dispatcher of the
// contract's shape: there is no status column and no jobs table.
//
// # Shape
//
// outbox_messages is the log: `offset` BIGINT AUTO_INCREMENT PRIMARY KEY,
// uuid CHAR(36) (the message id), topic (the BullMQ queue), payload JSON,
// created_at. No row is ever updated or deleted. outbox_offsets holds, per
// consumer_group, offset_acked: every message up to it is published. The
// manifest says so with states.cursor; delivery is at-least-once.
//
// # A turn
//
// Instances of one group take turns on the group's offsets row. A turn is
// one READ COMMITTED transaction: SELECT offset_acked ... FOR UPDATE (the
// other instances wait on that row), read up to OUTBOX_BATCH_SIZE messages
// after it in offset order, walk them up to the first offset that may still
// commit (below), publish what it passed to BullMQ in one pipeline (jobId =
// uuid, data = payload, queue = topic; the publish is bounded by
// OUTBOX_PUBLISH_TIMEOUT), move offset_acked to the last message Redis
// took, COMMIT. A crash before the COMMIT leaves the offset where it was and
// the next turn publishes the same messages again: a re-add of an id whose
// job exists is a no-op (a "duplicated" event), and after the consumer
// removed the job it is a second job under the same id, which at-least-once
// allows. On MariaDB the turn sets idle_transaction_timeout a few seconds
// past the publish timeout, so an owner paused inside its turn loses the
// transaction, and with it the turn and its offset write. SIGTERM ends the
// turn in progress and exits 0.
//
// # Commit-order gaps
//
// AUTO_INCREMENT hands an offset out at the INSERT; the row becomes visible
// at the COMMIT. A transaction held open leaves a hole below rows that
// committed after it, and a cursor moved past the hole never comes back for
// the row. A missing offset below a row read is passed only when both hold:
//
//   - it has been missing for OUTBOX_GAP_LAG (default 2 s) since this
//     instance first saw it missing; and
//   - a locking read of the missing range with NOWAIT finds nothing: a row
//     an open transaction inserted carries that transaction's lock, so the
//     read fails at once with a lock wait error (wait), and a range with no
//     row and no lock can never fill, because each offset is handed out
//     once.
//
// The probe, not the lag, is what makes it correct for a transaction of any
// length: a row held open for a minute is waited for a minute. The lag only
// keeps the relay from probing every short-lived hole, and covers the
// instant inside an INSERT between the offset being handed out and the row
// being written. A rolled-back offset (a hole that never fills) is passed a
// lag after it was seen; the probe reads a whole hole at once, so rolled-back
// offsets in one hole with a held one wait for it (passing them alone would
// publish nothing more). Reading only rows older than a safety lag, or
// passing a hole once it outlived one, would be wrong for any transaction
// longer than the lag.
//
// # Tuning
//
// OUTBOX_POLL_INTERVAL (between turns that did not fill a batch),
// OUTBOX_BATCH_SIZE, OUTBOX_PUBLISH_TIMEOUT; and its own OUTBOX_GAP_LAG and
// OUTBOX_CONSUMER_GROUP (default bullmq-relay, which the manifest names).
// There are no leases, attempts or backoff in the shape: a failed publish
// is retried by the next turn, after a pause that doubles up to a second.
//
// # Planted bugs
//
// Chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml each):
//
//	trusts-id           the offset moves to the highest offset read, over every hole
//	                    (I2, commit-order-gaps: rows committed behind it are never published)
//	ack-before-publish  the offset moves and commits before the publish; a publish that
//	                    fails, or a crash before it, loses the batch (I3, redis-outage:
//	                    published by the offset, no job in Redis)
package main
