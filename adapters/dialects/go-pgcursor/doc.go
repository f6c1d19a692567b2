// Command go-pgcursor is a dialect relay on PostgreSQL, written on its own
// in the shape of the cursor relays of Go messaging libraries: an
// append-only message log with a BIGSERIAL offset and a consumer group's
// offset in a second table. It is no dispatcher of the contract's shape:
// there is no status column and no jobs table. Its delivery is
// at-least-once.
//
// # Shape
//
// outbox_messages is the log (schema.sql): txid xid8 DEFAULT
// pg_current_xact_id() (the writing transaction), msg_offset BIGSERIAL
// PRIMARY KEY, uuid (the message id, the BullMQ jobId), topic (the BullMQ
// queue), payload jsonb (the job's data), created_at. No row is ever
// updated or deleted. outbox_offsets holds, per consumer_group,
// offset_acked: every offset up to it is published, or was rolled back and
// can never appear. The manifest says so with states.cursor.
//
// # A turn
//
// Instances of one group take turns. A turn is one READ COMMITTED
// transaction: pg_advisory_xact_lock on the group (not a row lock, which
// would give the turn a transaction id before its read, below). It reads
// offset_acked, then in one statement, at one snapshot, the next
// OUTBOX_BATCH_SIZE messages after it in offset order and
// pg_snapshot_xmin(pg_current_snapshot()). It walks them (below), publishes
// what it passed to BullMQ in one pipeline (jobId = uuid, data = payload,
// queue = topic; an add of an id whose job exists is a no-op; bounded by
// OUTBOX_PUBLISH_TIMEOUT), moves offset_acked to the last message Redis
// took (an UPDATE that requires the row to still hold the offset read), and
// commits. A crash, a lost connection or a COMMIT that fails leaves the
// offset where it was: the next turn publishes the batch again, which
// at-least-once allows (after the consumer removed a job, a second job
// under the same id). Each turn sets idle_in_transaction_session_timeout a
// few seconds past the publish timeout, so an owner paused inside its turn
// loses its session, and with it the lock and any offset write. SIGTERM
// ends the turn in progress and exits 0.
//
// # Commit-order gaps
//
// A BIGSERIAL offset (a sequence's nextval, as an IDENTITY column's) is
// handed out at the INSERT; the row becomes visible at the COMMIT. A
// transaction held open leaves a hole below rows that committed after it,
// and a cursor that trusts `offset > last` moves past the hole and never
// comes back for the row: the bug of relays on BIGSERIAL visibility. The
// fix is PostgreSQL's snapshot: pg_current_snapshot(), its xmin
// (pg_snapshot_xmin: every transaction below it has ended) and each row's
// transaction id (xid8, pg_current_xact_id(); the xmin system column's
// 64-bit form). The walk passes, in offset order:
//
//   - a row only when its transaction is below the snapshot's xmin (the
//     rows a relay reading by transaction order may take);
//   - a hole (offsets no row holds) only when it is closed for good.
//
// A hole below a row read at snapshot S is closed once a later snapshot's
// xmin is above a transaction id taken after S (a stamp, horizon.go): the
// offsets of the hole were handed out before the row's, to transactions
// that had their ids already, because schema.sql puts txid before
// msg_offset and PostgreSQL evaluates an INSERT's defaults in column order.
// Those ids are below the stamp; once the xmin passes it, each of them has
// ended, and an offset still missing from that read was rolled back. A
// held transaction of any length is waited for, and a rolled-back offset
// is passed about one turn after its transaction ends, with no timer. The
// turn takes its stamp with pg_current_xact_id() after its read, only when
// it stopped at a hole no stamp covers. The sequence must keep CACHE 1
// (the default): with a cache, offsets are not handed out in time order.
//
// Ordering the whole log by (txid, offset) and reading below the xmin, as
// some libraries do, is correct too, but its cursor is a transaction id and
// an offset; this relay keeps one offset below which everything is
// published, which is what its manifest's cursor declares.
//
// # Tuning
//
// OUTBOX_POLL_INTERVAL (between turns that did not fill a batch),
// OUTBOX_BATCH_SIZE, OUTBOX_PUBLISH_TIMEOUT, and its own
// OUTBOX_CONSUMER_GROUP (default bullmq-relay, which the manifest names).
// There are no leases, attempts or backoff in the shape: a failed publish
// is retried by the next turn, after a pause that doubles up to a second.
//
// # Planted bugs
//
// Chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml each); an unknown one is
// a one-line configuration error, exit 2:
//
//	trusts-id           passes every row it read, `offset > last`, with no snapshot check:
//	                    the offset moves over every hole (I2, commit-order-gaps: rows
//	                    committed behind it are never published)
//	ack-before-publish  the offset moves and commits before the publish; a publish that
//	                    fails, or a crash before it, loses the batch (I3, redis-outage:
//	                    published by the offset, no job in Redis)
package main
