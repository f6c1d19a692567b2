// Command go-reason is a dialect dispatcher: an outbox dispatcher written on
// its own to the contract (docs/contract.md), whose recovery writes a
// reason.
//
// Its convention: any instance, on a periodic sweep (every quarter lease, at
// least one poll interval), returns every expired claim to pending in one
// guarded UPDATE with last_error = 'lease expired, owner <locked_by>' and
// available_at left alone. A history that takes "a new last_error" for a
// transient failure misreads these recoveries (issue 10, item 1).
//
// The rest: a batch claimed with FOR UPDATE SKIP LOCKED in one short
// transaction under one fresh lock token; attempts counted at the claim;
// validation (type, job row, already dispatched -> published with no add,
// queue allowlist, jobId not all digits and without ':'); one pipelined Lua
// add per batch that writes BullMQ's hash, wait (or paused) list, marker and
// "added"/"waiting" stream entries, plus a dispatch record
// (outbox-dispatched:<prefix>:<queue>:<id>, a week) so a re-add after a
// worker removed the job stays a no-op; one finalize transaction per batch,
// every write fenced by status and token; transient failures back to pending
// with last_error "attempt N: ..." and available_at = NOW(6) + base *
// 2^(N-1) capped at the maximum, failed at max attempts; SIGTERM finishes the
// batch in flight and exits 0.
//
// A reason that last_error does not take is learned from the refusal:
// every reason is made valid UTF-8 and cut on a character boundary (at
// first to 1000 characters); when the server refuses it under strict mode
// (1406 data too long, 1366 incorrect string value) the same write is run
// again, in the same transaction, with half as many characters until it is
// taken, and the length taken becomes the cut for every later reason and the
// sweep's. The column may be narrower than the contract's; the refusal must
// not roll back the batch's finalize.
//
// Planted bugs, chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml each):
//
//	no-backoff           a transient failure is due again at once (I6, queue-error)
//	poison-as-transient  permanent failures are retried with backoff (I4, poison)
//	no-jobid             adds without a custom jobId: the job is named by the
//	                     queue's id counter, so a re-add makes a second job
//	                     (I1, crash-window)
package main
