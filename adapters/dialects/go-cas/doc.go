// Command go-cas is a dialect dispatcher written on its own to the contract
// (docs/contract.md) that claims by compare-and-set instead of SKIP LOCKED
// and counts attempts at failure instead of at the claim.
//
// Claim: one UPDATE ... SET locked_by, lock_token = <fresh>, locked_until =
// NOW(6) + lease, status = 'processing' WHERE (status = 'pending' AND
// available_at <= NOW(6)) OR (status = 'processing' AND locked_until <
// NOW(6)) ORDER BY id LIMIT n, then SELECT ... WHERE lock_token = <that
// token>. The UPDATE walks the primary key up from the oldest open row, so
// it passes over a producer's uncommitted INSERT instead of waiting for its
// COMMIT (a locking scan of the status index waits, and every claim stalls
// behind a slow producer transaction). Lease recovery is that takeover: an
// expired claim is taken directly by the next claimer, under a new token,
// without passing through pending. attempts is untouched by a claim; a transient failure writes
// attempts = N (its N-th failure), backs off base * 2^(N-1) capped, less up
// to a quarter of jitter, and at N = max attempts fails the event; a
// permanent failure fails at once with attempts + 1.
//
// The rest: validation as the contract says (already dispatched ->
// published with no add); each job added by its own script call (hash,
// "added"/"waiting" stream entries, wait list, marker, and a sent mark
// that keeps a re-add a no-op for a week after a worker removed the job; a
// duplicate writes "duplicated" and changes nothing); all outcomes in one transaction, every
// write fenced by status and token; READ COMMITTED everywhere; SIGTERM ends
// the round in progress and exits 0.
//
// Failure texts are fitted before they are written: at start (and at each
// settle until a read succeeds) it reads last_error's width in characters
// from information_schema.COLUMNS, and every text it writes there is made
// valid UTF-8 and cut on a character boundary to that width (to 1024 while
// the width is unknown). A deployment's column may be narrower than the
// contract's; a text the server would refuse under strict mode (1406, 1366)
// would roll the whole settle back.
//
// Planted bugs, chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml each):
//
//	unfenced-finalize   outcomes written by id alone, in a settle that outlives the round's
//	                    lease deadline (I5, zombie)
//	select-then-update  a plain SELECT, then an UPDATE by id with no guard (I5, contention)
//	unbounded-attempts  never fails at max attempts (I7, redis-outage)
//	no-lease-recovery   never takes over an expired claim (I8, crash-window)
package main
