// Command go-single is a dialect dispatcher written on its own to the
// contract (docs/contract.md) that handles one event per transaction, and
// adds under a global Redis lock (the queue-constants seed's design).
//
// Each event goes through three steps of its own: a claim transaction (the
// oldest due event, FOR UPDATE SKIP LOCKED, attempts counted, a fresh token
// and a lease, and its ai_jobs row read in the same transaction); the add,
// under the global lock outbox-dispatch-lock:<prefix> (SET NX PX publish
// timeout with a random token, released by a script only while it still
// holds that token, so a holder paused past the TTL cannot release its
// successor's lock); and a finalize transaction fenced by status and token
// (published + job created -> queued; failed with the reason; or pending
// with last_error "attempt N failed: ..." and available_at = NOW(6) + base *
// 2^(N-1), capped; failed at max attempts). The add is BullMQ's for a custom
// jobId: counter, opts.maxLenEvents, "duplicated" for an existing job, else
// hash, "added", wait (paused list while paused), marker unless held,
// "waiting"; and a per-queue ledger of the week's adds, so a re-add after a
// worker removed the job is a duplicate too. OUTBOX_BATCH_SIZE is ignored: one event at a time. Expired
// claims go back to pending, error unchanged, at the start of every poll
// round. SIGTERM stops between two events: nothing is held when it exits.
//
// Failure texts are written as they come. When the server refuses one under
// strict mode (SQLSTATE 22001 "Data too long", or 1366 "Incorrect string
// value": a deployment's last_error may be narrower than the contract's
// 1024), the finalize reads last_error's width from information_schema (at
// the first refusal only; it is kept) and writes the same outcome again, in
// the same transaction, with the text made valid UTF-8 and cut on a
// character boundary to that width.
//
// Planted bugs, chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml each):
//
//	re-add-dispatched     an event whose job is already past created is added
//	                      again, not closed (I1, poison)
//	push-without-check    HSET + LPUSH with no existence check; it still writes
//	                      the "added" entry the window trap needs (I1, crash-window)
//	overwrite-job-data    an existing job's data and opts are rewritten, the
//	                      data naming the instance (I9, crash-window)
//	published-not-queued  the job row is never moved to queued (I3, crash-window,
//	                      where the consumer leaves the rows alone)
//	global-lock           the Redis lock (TTL = lease) is the only exclusion:
//	                      claim, add and finalize under it, no row lock, no
//	                      lease check, processing rows adopted, finalize by id
//	                      (I5, zombie)
package main
