// Command go-turns is a dialect dispatcher written on its own to the
// contract (docs/contract.md) in the queue-constants seed's style
// (seed 001): the instances take turns under one global Redis
// lock, and each turn dispatches one batch.
//
// Turns. About every OUTBOX_POLL_INTERVAL (give or take half of it at
// random, so that no instance's tries keep falling just after another's) an
// instance tries SET outbox-turns:<prefix>:dispatch-lock <fresh token> NX
// PX <OUTBOX_PUBLISH_TIMEOUT> (the seed's lock TTL is its queue operation
// timeout). Whoever sets it has the turn; the others skip that try. The
// holder gives the lock back with a compare-and-delete script of its own
// (deleted only while it still holds the turn's token), so an instance
// paused past the TTL never ends its successor's turn. The lock only takes
// turns: the rows' own claims are what keep two instances off one event,
// so a turn that outlives the lock is still safe.
//
// Inside a turn, in order:
//   - claim (one READ COMMITTED transaction): claims whose lease ran out
//     (status processing, locked_until < NOW(6): the takeover that is this
//     dialect's lease recovery), then due pending rows (available_at <=
//     NOW(6)), both in the claim index's order, LIMIT the batch, FOR UPDATE
//     SKIP LOCKED (so a producer's open INSERT is passed over, never waited
//     for); then one UPDATE by id: processing, locked_by, a fresh lock_token,
//     locked_until = NOW(6) + lease, attempts + 1 (attempts count claims);
//   - inspect: the ai_jobs rows in one plain query; the contract's checks in
//     its order; a job past created is closed as published with no add;
//   - add: one pipeline of EVALSHA, one per job, within
//     OUTBOX_PUBLISH_TIMEOUT (a Redis that lost the script gets it again).
//     The script is this dialect's BullMQ add for a custom jobId (counter,
//     opts.maxLenEvents, "duplicated" for an existing job, else hash,
//     "added", wait or paused list, marker unless held, "waiting"), plus a
//     per-queue ledger (outbox-turns:<prefix>:<queue>:ledger, a sorted set
//     of the week's jobIds), so a re-add after a worker removed the job is a
//     duplicate too;
//   - settle (one READ COMMITTED transaction, on a context of its own, tried
//     again while MySQL fails, for up to a lease): the rows still processing
//     under the claim's token are locked by primary key and only those are
//     written, each write fenced by status and token again: published (its
//     job created -> queued); failed with "permanent: ..." at once for a
//     permanent failure; for a transient one pending with last_error
//     "attempt N of M failed: ..." and available_at = NOW(6) + base *
//     2^(N-1), capped, or failed "attempt N of M, giving up: ..." at the
//     maximum. The server fits every such text to the column: it is written
//     as LEFT(text, width), the width read from information_schema in the
//     same statement, so a last_error narrower than the contract's 1024 cuts
//     the text (on a character boundary, the text made valid UTF-8 first)
//     instead of refusing it under strict mode and rolling back the settle.
//
// There are no releases: a turn settles every event it claimed, or leaves
// it claimed until its lease runs out. SIGTERM stops the tries for a turn;
// the turn in progress ends, then the process exits 0.
//
// Defaults are the seed's (batch 20, 10 attempts, 5 s lock and queue
// operation timeout, 1 s interval) and a 30 s lease; the harness passes its
// own tuning.
//
// Planted bug, chosen by OUTBOXCHAOS_PLANT (manifest-high-water-mark.yaml):
//
//	high-water-mark  each instance keeps, in memory, the highest id it has
//	                 claimed, and claims only ids above it (a cursor relay's
//	                 habit). An event whose insert committed after a higher
//	                 id was claimed by every instance is never published
//	                 (I2, commit-order-gaps).
package main
