// Package reference is the reference outbox dispatcher: it moves rows of the
// contract's outbox_events table (docs/contract.md §1) to BullMQ queues in
// Redis, one job per ai_jobs row, and closes each event as published,
// failed, or pending again for a retry. The binary is reference/cmd/dispatcher;
// the BullMQ producer is package reference/bullmq; the crash points are
// package reference/failpoint.
//
// This file is the protocol, written down for a reader who must trust it.
//
// # States
//
// An event row moves through these states. Every arrow is ONE SQL statement
// whose WHERE clause re-checks the state it leaves (the guard); a write whose
// guard matches nothing changes nothing.
//
//	           claim (SKIP LOCKED, attempts+1, new token, locked_until)
//	pending ──────────────────────────────────────────────► processing
//	   ▲  ▲                                                   │  │  │
//	   │  └── retry: transient failure, attempts < max ───────┘  │  │
//	   │      (fenced; last_error = "attempt n of m: ...",       │  │
//	   │       available_at = now + backoff)                     │  │
//	   └───── recover (lease expired by a margin), release, ─────┘  │
//	          or give back (a dependency answered nothing;          │
//	          attempt returned); lock cleared, last_error and       │
//	          available_at untouched                                │
//	                                                                │
//	published ◄── finalize: added / duplicate / deduped / already ──┤
//	              dispatched / found (fenced; job created -> queued)│
//	failed    ◄── finalize: permanent reason, or transient at max ──┘
//
// published and failed are final: no statement of the dispatcher has a guard
// that matches them, so they never go back.
//
// # Claim
//
// One short READ COMMITTED transaction (Dispatcher.Claim):
//
//	SELECT id, event_type, aggregate_id, attempts FROM outbox_events
//	 WHERE status = 'pending' AND available_at <= NOW(6)
//	 ORDER BY available_at, id LIMIT :batch FOR UPDATE SKIP LOCKED
//	UPDATE outbox_events SET status = 'processing', locked_by = :instance,
//	       lock_token = :token, locked_until = NOW(6) + :lease, attempts = attempts + 1
//	 WHERE id IN (:ids) AND status = 'pending'
//	COMMIT
//
// SKIP LOCKED makes concurrent claimers take disjoint rows without waiting
// for each other; the row locks make the UPDATE's guard always true (it is
// there so the statement is safe on its own, and the claim fails loudly if
// it ever matches fewer rows than were locked). available_at <= NOW(6) keeps
// the backoff: a row is never claimed before it is due. The token is 128
// random bits, fresh for every claim, shared by the rows of one batch; it is
// the fencing token of every later write. locked_until is on the DATABASE
// clock, as is every other time the protocol compares, so instance clocks
// never decide who holds a row. READ COMMITTED avoids gap locks, so producers inserting new
// events are never blocked by a claim. Only the id, type, job id and attempts
// are read: the lock is held for two statements and no network call.
//
// The claim counts the attempt (attempts counts claims). A claim lost to a
// crash therefore leaves attempts one higher although no failure was seen;
// recovery does not undo it (see below).
//
// # Validate (contract step 2)
//
// With no lock held, the batch's ai_jobs rows are read in one query. Each
// event is checked in the contract's order: event_type must be
// ai.job.enqueue (else unknown_event_type); the job must exist (else
// job_not_found); a job already past 'created' was dispatched before,
// typically by an instance that crashed between the add and the finalize,
// and a worker may since have run and removed its BullMQ job, so the event is
// closed as published with NO add (how = already_dispatched); the job's
// queue_name must be in OUTBOX_QUEUES (else queue_not_allowed); the id must
// be a legal BullMQ jobId (else illegal_job_id). Permanent failures are
// written as failed in the finalize below, with "<reason>: <detail>" in
// last_error, and never touch Redis. If the query fails, the whole batch is a
// transient failure.
//
// # Lease check, then the add
//
// Before writing to Redis the dispatcher checks its lease locally (hibiken/
// asynq's idea): Batch.Deadline is the local clock read BEFORE the claim
// began plus the lease, which is never later than the database's
// locked_until. Only if more than OUTBOX_PUBLISH_TIMEOUT is left is the batch
// added; otherwise (a pause, a slow claim) it is released untouched and
// someone claims it again. Config requires the lease to be at least twice
// the publish timeout (an unset one follows the other, see Configuration). The add is ONE Producer.Add call for the batch (one
// pipelined round trip), bounded by OUTBOX_PUBLISH_TIMEOUT. Each job has
// jobId = ai_jobs.id and data {"jobId":"<id>"}. Added, Duplicate (the job
// hash exists) and Deduped (the hash is gone but the dedupe record is within
// OUTBOX_DEDUPE_HORIZON) all mean "BullMQ has had this job": the event is
// published. A Redis error reply about one job (e.g. WRONGTYPE from one
// queue's keys) is that event's transient failure. A whole-call failure
// with no answer (timeout, connection refused or lost, a lost reply) means
// the outcome is unknown and the failure is not the events': they are given
// back and the Redis breaker opens (see "Dependency health"); the next add
// is a no-op for the jobs that did land.
//
// # Finalize
//
// One READ COMMITTED transaction for the whole batch, fenced:
//
//	SELECT id FROM outbox_events
//	 WHERE id IN (:ids) AND status = 'processing' AND lock_token = :token FOR UPDATE
//	UPDATE outbox_events SET status = 'published', published_at = NOW(6), locked_until = NULL
//	 WHERE id IN (:ours_published) AND status = 'processing' AND lock_token = :token
//	UPDATE ai_jobs SET status = 'queued' WHERE id IN (:their_jobs) AND status = 'created'
//	UPDATE outbox_events SET status = 'failed', last_error = CASE id ... END, locked_until = NULL
//	 WHERE id IN (:ours_failed) AND status = 'processing' AND lock_token = :token
//	UPDATE outbox_events SET status = 'pending', locked_by = NULL, lock_token = NULL,
//	       locked_until = NULL, last_error = CASE id ... END,
//	       available_at = NOW(6) + INTERVAL (CASE id ... END) MICROSECOND
//	 WHERE id IN (:ours_retried) AND status = 'processing' AND lock_token = :token
//	-- failpoint before-finalize-commit
//	COMMIT
//
// The SELECT ... FOR UPDATE decides, under lock, which rows are still ours;
// only those are written (and only their jobs), so the event and its job
// change together or not at all (contract step 4). Rows that are no longer
// processing under our token were recovered and maybe re-claimed, or closed,
// by someone else: they are fenced out, counted in outbox_fenced_out_total,
// logged, and never forced. Every UPDATE repeats the guard, so each statement
// is safe even read alone. The job update's guard (status = 'created') leaves
// a job a worker already moved on untouched. published and failed rows keep
// locked_by and lock_token: the row shows who closed it.
//
// # Lock conflicts
//
// InnoDB may answer any locking statement with a deadlock (1213, SQLSTATE
// 40001: it rolled the transaction back) or a lock wait timeout (1205),
// most of all on a busy table. Neither says anything about the events, and
// both say "try restarting transaction": a claim or a finalize rolls back
// and runs its whole transaction again from its first statement, up to 3
// more times, pausing 10, 20, then 30 ms. Only a transaction that still
// meets a conflict then fails, and is handled as any error reply (a claim
// is tried at the next poll; a finalize as below). A lease recovery, one
// statement, runs again at its next round.
//
// # Transient failures and backoff
//
// An error reply about the event (a Redis error reply for its add, a MySQL
// error reply while validating or finalizing) makes the event a transient
// failure; no answer does not (see "Dependency health"). A transient
// failure goes back to pending in the
// finalize, with last_error = "attempt <n> of <max>: <error>" (fitted to the
// column: every last_error written is made valid UTF-8 and cut, on a
// character boundary, to the width the dispatcher reads once from
// information_schema, at most 1024; under strict SQL mode a text that does
// not fit is refused, and refused again at every attempt; the attempt number makes consecutive errors differ, which is
// how a history tells a transient failure from a recovery) and available_at
// = NOW(6) + backoff. The backoff ceiling is min(OUTBOX_BACKOFF_MAX,
// OUTBOX_BACKOFF_BASE * 2^(attempts-1)); the delay is drawn uniformly from
// [ceiling/2, ceiling], so delays never shrink until the cap (the lower bound
// of attempt n+1 is the upper bound of attempt n). When attempts has reached
// OUTBOX_MAX_ATTEMPTS the event is failed instead, with last_error
// "max_attempts: attempt <n> of <max>: <error>", but only after the look
// described in "Before failing at max attempts". If MySQL answers the
// finalize itself with an error reply, the batch is written again in a fresh
// fenced transaction: its poison events failed at once as before (the
// finalize failed, not they), every other event as a transient failure; if
// a COMMIT did land, that write matches nothing and undoes nothing. If MySQL answers nothing
// (down, or an unknown COMMIT outcome), nothing more is written: the MySQL
// breaker opens and the rows return through lease recovery.
//
// # Dependency health
//
// Each dependency (Redis, MySQL) has a breaker. The dispatcher tells "the
// dependency answered nothing" from "it answered with an error about this
// event" (answeredNothing): connection refused or reset, i/o timeout, a
// deadline that ran out on the command, EOF, a lost reply, a closed or
// exhausted pool, and the server-wide replies LOADING, MASTERDOWN, BUSY,
// CLUSTERDOWN, TRYAGAIN, READONLY, OOM (Redis) or 1040, 1053, 1927, 4031,
// 1290, 1836 (MySQL)
// are no answer; any other error reply is an answer. An event's attempts
// are spent only on answers about it.
//
//	          no answer                  probe answered
//	closed ──────────────► open ────────────────────► half-open
//	  ▲                    ▲ │ ▲                          │   │
//	  │                    │ └─┘ probe: no answer,        │   │
//	  │                    │     wait doubles (capped)    │   │
//	  │                    └──────── no answer ───────────┘   │
//	  └────────── an answer (a reply, even an error) ─────────┘
//
// In each state:
//
//   - closed: work as usual. The hot path checks the state with one atomic
//     load and adds no round trip.
//   - open: the loop claims nothing (while MySQL is open it also skips
//     lease recovery and the gauge). The first probe comes max(100ms, poll
//     interval) after opening; each probe that gets no answer doubles the
//     wait, up to max(5s, poll interval); a probe is a Redis PING or a
//     MySQL ping, bounded by OUTBOX_PUBLISH_TIMEOUT. Held events: when
//     Redis answered nothing, the batch in flight is finalized with those
//     events GIVEN BACK: pending at once, lock cleared, last_error and
//     available_at untouched, and attempts - 1, so the claim spends no
//     attempt; its other events (poison, already dispatched) are finalized
//     as usual. When MySQL answered nothing the dispatcher cannot write a
//     give-back: what it holds stays processing until its lease runs out,
//     and lease recovery (by any instance, once MySQL answers) returns it,
//     keeping the claim in attempts (at most one attempt per outage, for
//     the batch in flight).
//   - half-open: a probe was answered; claims resume. The next answer from
//     the dependency closes the breaker; no answer reopens it and the probe
//     wait keeps doubling from where it was.
//
// /healthz answers 503 while a breaker is open, with its reason and since
// when; /metrics has outbox_dependency_breaker_state{dependency} (0
// closed, 1 half-open, 2 open), outbox_dependency_open_seconds_total
// {dependency}, outbox_dependency_probes_total{dependency,result}
// (answered, no_answer) and outbox_given_back_total.
//
// # Before failing at max attempts
//
// An event can reach its last attempt after an add whose outcome was
// unknown (an earlier attempt's reply was lost), so its job may exist.
// Before a transient failure fails a valid event at max attempts, the
// dispatcher looks in Redis, in one pipelined round trip for the whole
// batch, for the job hash or its dedupe record (which outlives
// removeOnComplete) in the job's queue, or in every allowed queue when the
// failure came before the queue was known. Found: the event is published
// (how = found) and its job queued. Redis answered nothing: nothing is
// decided, the event is given back with its last attempt unspent, and the
// breaker opens. Any other error leaves the event failing, with the error
// appended to last_error. Batches with no event at its last attempt do no
// lookup.
//
// # Lease recovery
//
// Every max(OUTBOX_POLL_INTERVAL, OUTBOX_RECOVERY_MARGIN), each instance
// reads, without locking, the ids that look expired, then runs ONE guarded
// statement (Dispatcher.RecoverExpired):
//
//	SELECT id FROM outbox_events
//	 WHERE status = 'processing' AND locked_until < NOW(6) - :margin ORDER BY id LIMIT 10000
//	UPDATE outbox_events SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
//	 WHERE id IN (:ids) AND status = 'processing' AND locked_until < NOW(6) - :margin
//
// The UPDATE's guard is the whole safety argument: it is evaluated under
// the row lock, so a row finalized meanwhile is not processing, a row
// re-claimed meanwhile has a fresh locked_until in the future, and a live
// owner's row is not expired. The read only nominates candidates, so the
// UPDATE can go by primary key (see "Lock order"). The margin
// (default min(lease/10, 1s)) leaves an owner that passed its local lease
// check a little extra time before anyone takes over. Recovery keeps
// attempts (they count claims: a crash is not a transient failure, so it
// neither consumes a backoff nor fails the event, but it is visible in
// attempts and in outbox_recovered_total), and leaves last_error and
// available_at alone, so the row is due at once.
//
// # Lock order
//
// Only two statements find rows through the status index: the claim's
// SELECT ... FOR UPDATE SKIP LOCKED, which never waits, and recovery's
// lock-free read. Every other statement that locks outbox rows addresses
// them by primary key (WHERE id IN (...) AND <guard>, with FORCE INDEX
// (PRIMARY), since the optimizer otherwise prefers the status index for the
// guard), so all of them take row locks in ascending id order and cannot
// deadlock with each other. Without the hint, two finalizes scanning the
// 'processing' range wait on each other's index entries: that deadlock was
// seen with four instances before the hint was added.
//
// # Release and graceful stop
//
// Release is recovery for a batch we still hold, fenced by our token:
// status back to pending, lock cleared, last_error, attempts and
// available_at untouched, no backoff. On SIGTERM or SIGINT (Run's context
// cancelled) the loop claims nothing more; the batch in flight continues
// with a context that outlives the stop by OUTBOX_SHUTDOWN_TIMEOUT. A batch
// not yet added to Redis is released at once; one already added is
// finalized. If the deadline cuts the work short, whatever is still held is
// released (one more statement, bounded by min(lease, 5s)). Then the metrics
// server stops, the connections close and the process exits 0.
//
// # Crash windows
//
// SIGKILL can land anywhere; each window is safe:
//
//   - after-claim (rows processing, nothing in Redis): the lease runs out,
//     recovery returns the rows, another claim processes them. attempts is
//     one higher.
//   - after-enqueue (jobs in BullMQ, events processing, jobs 'created'):
//     recovery returns the rows; the next claim finds the jobs still
//     'created' and adds again; BullMQ answers Duplicate because the job hash
//     exists (jobId = ai_jobs.id), so no second job is created; the finalize
//     publishes. If a worker has meanwhile moved the job past 'created', the
//     event is closed with no add.
//   - before-finalize-commit: the transaction is rolled back by the server
//     when the connection dies; as after-enqueue.
//   - after-finalize-commit: everything is durable; nothing is left to do.
//   - a pause (SIGSTOP, GC, a slow network) past the lease: another instance
//     recovers and re-claims; the paused one either fails its local lease
//     check before the add, or adds (a no-op: Duplicate) and is fenced out at
//     the finalize. Only the current token's owner ever writes a finalize.
//   - a lost reply on the Redis add: outcome unknown, no answer: the events
//     are given back and the next add is a no-op. A lost reply on the
//     finalize COMMIT: no answer, nothing more is written; lease recovery
//     returns the rows if the COMMIT did not land.
//
// # What the dedupe horizon closes
//
// BullMQ ignores a second add of a jobId only while the job hash exists. A
// consumer with removeOnComplete deletes it when the job completes; a later
// re-add of the same id (the after-enqueue window above, when the worker has
// not moved ai_jobs past 'created') would create a brand-new job that runs
// again. The producer therefore also writes a dedupe record per job id that
// outlives the hash by OUTBOX_DEDUPE_HORIZON (default 168h): a re-add within
// the horizon answers Deduped and creates nothing. The horizon must exceed
// the longest time an event can stay unfinished after its first add (the
// retry budget plus any outage); past it, exactly-once in BullMQ rests on
// the contract's 'created' check alone.
//
// # Time
//
// Every statement takes "now" as COALESCE(CAST(? AS DATETIME(6)), NOW(6)):
// the database clock unless a test injects a clock (WithClock), river's
// pattern. The only local-clock decision is the lease check before the add,
// which is conservative by construction.
//
// # Configuration
//
// ConfigFromEnv reads OUTBOX_MYSQL_DSN, OUTBOX_REDIS_URL, OUTBOX_QUEUES
// (required), OUTBOX_INSTANCE_ID (default <hostname>-<pid>),
// OUTBOX_BULL_PREFIX (bull), OUTBOX_POLL_INTERVAL (100ms),
// OUTBOX_BATCH_SIZE (100, at most 10000), OUTBOX_LEASE (max(30s, 2 x publish
// timeout, 2 x recovery margin)), OUTBOX_MAX_ATTEMPTS (10),
// OUTBOX_BACKOFF_BASE (min(1s, backoff max)), OUTBOX_BACKOFF_MAX (max(5m,
// backoff base)), OUTBOX_PUBLISH_TIMEOUT (min(5s, lease/2)),
// OUTBOX_DEDUPE_HORIZON (168h), OUTBOX_SHUTDOWN_TIMEOUT (max(10s, 2 x
// publish timeout)), OUTBOX_RECOVERY_MARGIN (min(lease/10, 1s)),
// OUTBOX_REDIS_REPLICAS (0: no WAIT; else each add batch ends with WAIT
// for that many replicas, and an add it does not count is given back),
// OUTBOX_METRICS_ADDR (off), OUTBOX_FAILPOINTS (off), OUTBOX_FAILPOINT_SEED
// (1), OUTBOX_LOG_LEVEL (info) and accepts OUTBOX_MYSQL_URL (ignored: it is
// for dispatchers in other languages). A default tied to another value
// follows the value set (Config.WithDerived): OUTBOX_LEASE=2s alone gives a
// 1s publish timeout and a 200ms margin. Only two explicit values that
// conflict are an error, naming both and the fix. Every value is validated; any other
// OUTBOX_ variable is an error naming the closest known one. MySQL and Redis
// operations are bounded: each MySQL statement or transaction by the lease,
// each add by the publish timeout.
//
// # Observability
//
// With OUTBOX_METRICS_ADDR set, /metrics serves outbox_claimed_total,
// outbox_published_total{how}, outbox_failed_total{reason},
// outbox_retried_total, outbox_fenced_out_total, outbox_recovered_total,
// outbox_released_total, outbox_given_back_total,
// outbox_oldest_pending_age_seconds (refreshed every
// 2s with one MIN over the claim index), outbox_batch_duration_seconds and
// the breaker series of "Dependency health", from a registry of its own;
// /healthz answers 200 while the loop runs, no breaker is open and its last
// poll succeeded within max(10 x poll interval, lease), else 503; its JSON
// body has "dependencies": {"redis"|"mysql": {state, reason, since}}.
// Logs are JSON (log/slog) on stderr with event_id, job_id, instance and
// outcome.
package reference
