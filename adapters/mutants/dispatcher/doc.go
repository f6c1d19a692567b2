// Package dispatcher is the mutant dispatcher: one small, correct outbox
// dispatcher (the base) in which exactly one deliberate bug can be switched
// on by name, so that the harness can prove each of its checkers fails a
// dispatcher that breaks its invariant. It also runs two seeds' slow but
// correct designs (modes) for benchmarks. The binary is
// adapters/mutants/cmd/mutant; the catalog and the harness adapter are
// package adapters/mutants.
//
// It shares with the reference only what is not a design decision, and
// holds no copy of the reference's code. From package reference it uses the
// public parts: the configuration (reference.ConfigFromEnv, every OUTBOX_*
// variable of docs/contract.md §3 and the reference's extras), the
// connections (reference.OpenMySQL at READ COMMITTED, reference.OpenRedis),
// the BullMQ producer (reference/bullmq), the backoff ceiling
// (reference.BackoffCeiling) and the crash points (reference/failpoint: the
// same OUTBOX_FAILPOINTS syntax, and the same crash: "failpoint <name>:
// crash" on stderr, then SIGKILL of the own process). The plumbing both
// dispatchers need (one transaction, IN lists, the ai_jobs read, row
// scanning, last_error's width, fencing tokens, the poll loop with its idle
// wait and shutdown grace, owned connections, the thin command) is package
// reference/dispatchkit, which both import; their tests share
// reference/dispatchtest. Its claim, validation, add, finalize and recovery
// are its own code, written for this base: that is where the bugs live.
//
// # The base, step by step
//
// Every state change is one statement whose WHERE clause re-checks the state
// it leaves; times are the database clock (NOW(6)).
//
//   - Claim, one READ COMMITTED transaction: SELECT up to OUTBOX_BATCH_SIZE
//     due pending rows ORDER BY available_at, id FOR UPDATE SKIP LOCKED,
//     then UPDATE them to processing with this instance, a fresh 128-bit
//     token, locked_until = NOW(6) + lease and attempts + 1, guarded by
//     status = 'pending'. Failpoint after-claim.
//   - Validate (contract step 2) with one read of the batch's ai_jobs rows:
//     unknown event type, missing job, queue not in OUTBOX_QUEUES and an
//     illegal jobId fail at once; a job past 'created' is closed as
//     published with no add.
//   - Add: one reference/bullmq Producer.Add for the batch, jobId =
//     ai_jobs.id, data {"jobId": id}, bounded by OUTBOX_PUBLISH_TIMEOUT.
//     Added, Duplicate and Deduped all publish. Failpoint after-enqueue
//     (only for a batch that had adds).
//   - Finalize, one transaction, fenced: SELECT the rows still processing
//     under our token FOR UPDATE; write only those, each UPDATE guarded by
//     status = 'processing' AND lock_token: published (published_at, job
//     created -> queued in the same transaction), failed with
//     "<reason>: <detail>", or a transient failure. Failpoint
//     before-finalize-commit, COMMIT, failpoint after-finalize-commit. The
//     transaction may last two leases: a finalize paused past its lease keeps
//     its row locks, and the guarded recovery waits for them, then skips the
//     rows it finds finalized.
//   - Transient failure (a Redis error or unknown outcome, an ai_jobs read
//     error): back to pending with last_error "attempt n of m: <error>" and
//     available_at = NOW(6) + a delay drawn uniformly from [c/2, c], c =
//     min(OUTBOX_BACKOFF_MAX, OUTBOX_BACKOFF_BASE * 2^(n-1)); failed with
//     "max_attempts: ..." once attempts reached OUTBOX_MAX_ATTEMPTS.
//   - Order: an event whose payload names an aggregate ({"jobId": ...,
//     "aggregate": "..."}, the ordering scenario's workload) is claimed
//     only when no earlier event (lower id) of that aggregate is pending
//     (due or waiting out its backoff) or processing; the adapter declares
//     ordering: per-aggregate (I10). Events without an aggregate (the
//     contract's payload) are not held back.
//   - Lease recovery, every max(poll interval, recovery margin): ONE UPDATE
//     to pending, clearing the lock, WHERE status = 'processing' AND
//     locked_until < NOW(6) - margin. attempts, last_error and available_at
//     stay. A finalize that fails leaves its rows to this recovery.
//   - Graceful stop (SIGTERM, SIGINT): no new claim; the batch in flight
//     finishes within OUTBOX_SHUTDOWN_TIMEOUT; nothing is held between
//     batches, so nothing is left to release; exit 0.
//
// # Bugs (OUTBOXCHAOS_MUTANT)
//
// Each bug changes exactly ONE field of the base's flow (flow.go), and the
// code reads that field at the one place it matters:
//
//	select-then-update             claim: plain SELECT, UPDATE by id without the status guard
//	no-jobid                       add: no custom jobId (BullMQ's INCR counter names the job)
//	mark-before-enqueue            order: finalize (published, job queued) before the add
//	no-lease-recovery              recovery: never
//	unfenced-finalize              finalize: WHERE id IN (...) with no status/token guard
//	recovery-overwrites-finalized  recovery: SELECT expired ids, then UPDATE by id only
//	poison-as-transient            permanent failures are retried like transient ones
//	no-backoff                     a transient failure is due again at NOW(6)
//	unbounded-attempts             no failure at max attempts
//	push-without-check             add: HSET + LPUSH, no existence check, no stream events
//	overwrite-job-data             add: the producer, then HSET data/opts over an existing job
//	                               (its data names the instance, so the overwrite shows)
//	published-not-queued           finalize: the job is never moved created -> queued
//	global-lock                    exclusion: a Redis dispatch lock (SET NX PX lease,
//	                               token-checked release) is trusted alone: claims read
//	                               due pending AND all processing rows without row locks
//	                               and take them by id with no lease; finalizes write by id
//	app-clock-lease                claim: locked_until = time.Now() + lease, the instance's own
//	                               clock, instead of NOW(6) + lease (caught under clock-skew)
//	order-after-backoff            claim: the per-aggregate order guard ignores an earlier event
//	                               waiting out its backoff, so a later one overtakes it
//	cursor-claim                   claim: a row never claimed is taken only if its id is
//	                               above the highest id this instance claimed (a
//	                               high-water mark); retries (attempts > 0) by status
//	sql-error-permanent            finalize: a MySQL error reply (a deadlock, a lock wait
//	                               timeout) fails the batch's events instead of leaving
//	                               them to lease recovery
//	memory-owner-registry          claim: each instance upserts its row in a MEMORY-engine
//	                               registry (outbox_owners, created at its first claim) before
//	                               every claim, and the claim also adopts the processing
//	                               rows of owners missing from it; a MySQL restart empties
//	                               the table, so claims are taken over within their lease
//	memory-owner-recovery          recovery: the same registry, upserted at each recovery
//	                               round, and the recovery also resets the processing rows
//	                               of owners missing from it; after a MySQL restart the
//	                               first to recover resets the others' live claims
//	transient-as-permanent         add: any Redis error reply (READONLY, LOADING, OOM: a
//	                               server's passing state) fails the event at once
//	                               instead of retrying it with backoff
//	no-timeouts-unfenced           no statement or command timeout (no deadline on a
//	                               context, no Redis read timeout), finalize by id with no
//	                               guard, and a failed finalize written again until MySQL
//	                               answers: hung on a half-open link past its lease, it
//	                               overwrites what others finalized when the link heals
//	local-zone-times               claim and retry: locked_until and available_at are
//	                               application time, written as the process's local wall
//	                               time (text in its TZ) instead of NOW(6) + span: a server
//	                               in another zone reads them hours off (caught under
//	                               time-zones)
//	unfitted-failure               finalize: last_error written as it comes (not cut to
//	                               the column, not made valid UTF-8), and a failure write
//	                               the server refuses goes back to pending as a transient
//	                               failure, with no bound: retried for ever
//	read-only-as-permanent         finalize: the store's read-only refusal (1290, 1836) is
//	                               a verdict on the batch: once the store takes writes again
//	                               its events are written failed, valid ones included
//	lease-end-fence                claim and finalize: the claim writes the lease end
//	                               computed here (time.Now() + lease, to the microsecond),
//	                               and the finalize recognises its rows by locked_until
//	                               equal to it instead of by the token: a column that keeps
//	                               whole seconds cut the value, so it finds none of its rows
//	                               and they go round for ever (caught under whole-seconds)
//	script-loaded-once             add: the producer's client loads the add script once and
//	                               answers every later SCRIPT LOAD itself, so after a Redis
//	                               restart (scripts are in memory only) every add meets
//	                               NOSCRIPT and is retried until the event fails
//	wait-unchecked                 add: declares durability: wait and sends WAIT after its
//	                               adds, but takes the add for done whatever count WAIT
//	                               answers, so an event is published while only the primary
//	                               holds its job, and a restart to what the replica held
//	                               loses it (caught in redis-loses-adds, I3)
//
// # Modes (OUTBOXCHAOS_MODE)
//
//	nest-single          the NestJS seed: a compare-and-set claim of one event per
//	                     transaction (read the 10 oldest due rows unlocked, take the
//	                     first for which UPDATE ... WHERE id = ? AND status = 'pending'
//	                     matches), claiming again at once while one was taken, else
//	                     polling every 5 s
//	global-lock-batch20  the queue-constants seed: each 1 s tick takes the Redis dispatch
//	                     lock and runs the base's claim of 20 events under it
//
// Both ignore OUTBOX_POLL_INTERVAL and OUTBOX_BATCH_SIZE. An unknown bug or
// mode, or both variables set, is a configuration error naming the valid
// values.
package dispatcher
