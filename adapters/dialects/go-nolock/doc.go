// Command go-nolock is a dialect dispatcher written on its own to the
// contract (docs/contract.md) that has no use for lock_token.
//
// Its convention: a claim is locked_by = OUTBOX_INSTANCE_ID (unique per
// instance and per start) with a lease in locked_until; lock_token stays
// NULL. Every later write is fenced by status = 'processing', locked_by =
// this instance and locked_until > NOW(6), so a claim that ran out is no
// longer this instance's to write. Releases carry a reason: on SIGTERM the
// events of the batch not yet started go back to pending with last_error =
// 'released: shutting down'; an event whose claim is too close to its lease
// end to start an add (lease - publish timeout - lease/10 after the claim) is
// given back with 'released: lease nearly over'. Neither moves available_at.
//
// The rest: a batch claimed with FOR UPDATE SKIP LOCKED (READ COMMITTED, so no
// gap locks stall the application's inserts); at the start of every round,
// whichever instance polls returns expired claims to pending with
// last_error unchanged; each event is then validated and added on its own
// (one Lua call: job hash, id counter, wait list and marker, and a
// dispatched key kept a week so a re-add after a worker removed the job
// adds nothing; no events stream: a real Worker consumes it, and the harness sees the creation by
// its keyspace notification); the batch's outcomes are written in one
// transaction (published + job created -> queued; permanent failures failed
// at once; transient failures pending with last_error "transient (attempt
// N/M): ..." and available_at pushed out by base * 2^(N-1), capped; failed at
// max attempts).
//
// A failure text that last_error refuses (strict mode: 1406 data too long,
// 1366 incorrect string value; the column may be narrower than the
// contract's 1024) is not the event's fault: the same write is tried again,
// in the same transaction, with the fixed text "reason did not fit
// last_error", and with NULL if even that is refused. The whole reason goes
// to the log. The status written never depends on the reason's length.
//
// Planted bug, chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml):
//
//	mark-before-enqueue  published and queued before the add; a failed add
//	                     leaves a published event with no job (I3, redis-outage)
package main
