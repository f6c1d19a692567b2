// Command go-pgskip is a dialect relay (adapters/dialects, issue 23) whose
// outbox is in PostgreSQL: a FOR UPDATE SKIP LOCKED claim, a lease and a
// fencing token per claim on the database's clock, and each delivery made
// under its rows' locks. It publishes each row as a BullMQ job. It was
// written on its own, for github.com/jackc/pgx/v5.
//
// # The outbox (schema.sql)
//
// relay_outbox holds one row per message: id (BIGSERIAL), message_id (a
// uuid the application writes: the BullMQ jobId), queue (the BullMQ
// queue), payload (jsonb: the job's data), status, attempts (claims so
// far), available_at, locked_by, lease_token, locked_until, last_error,
// published_at, created_at. No jobs table: the row carries the message.
//
//	status  meaning                                          manifest word
//	------  -----------------------------------------------  -------------
//	new     waiting for available_at                         pending
//	leased  claimed by locked_by, under lease_token, until   processing
//	        locked_until
//	done    its job was added                                published
//	dead    poison, or its last attempt failed               failed
//
// Poison is what no retry can publish: a queue outside OUTBOX_QUEUES, or a
// payload that is not a JSON object; dead at once, nothing added. The
// harness writes neither (with no jobs table every event it writes is
// valid), so I4 does not apply to it.
//
// # Clocks
//
// Every time the relay writes or compares is PostgreSQL's clock_timestamp(),
// the moment the statement reads it. now() (CURRENT_TIMESTAMP) is the start
// of the transaction: a lease or a not-before time computed with it inside
// a transaction that ran for a while is already shorter than it says when
// it is written. MySQL's NOW(6) is the statement's start and has no such
// trap; the plant backoff-at-tx-start below falls into it.
//
// # A round
//
//  1. Claim, one statement (its own transaction): a CTE selects up to
//     OUTBOX_BATCH_SIZE rows that are new and due (available_at <=
//     clock_timestamp()) or leased with a lease that ran out (locked_until
//     < clock_timestamp()), in id order, FOR UPDATE SKIP LOCKED; the UPDATE
//     over it sets leased, locked_by = OUTBOX_INSTANCE_ID, a fresh
//     lease_token (a uuid), locked_until = clock_timestamp() + lease, and
//     counts the attempt. A lease that ran out is taken over directly; no
//     sweep puts it back to new first.
//  2. Deliver, one READ COMMITTED transaction. It sets, for itself,
//     idle_in_transaction_session_timeout to (lease + publish timeout) / 2
//     and a statement_timeout; locks the claim's rows that are still its
//     own (SELECT ... WHERE id = ANY(...) AND lease_token = token AND
//     status = 'leased' AND locked_until > clock_timestamp() FOR UPDATE);
//     adds their jobs (one script call per row, pipelined, bounded by
//     OUTBOX_PUBLISH_TIMEOUT); shrinks the idle limit to what is left of
//     the rows' first lease, less 150 ms (50 ms at least), read on the
//     database clock; writes the verdicts, each UPDATE fenced by the token
//     and status again; commits. While it holds the locks no claim can
//     take the rows over: SKIP LOCKED passes them by.
//  3. The verdicts: a row whose job is in Redis (added now, or found there
//     by its jobId) is done; a failed add goes back to new with
//     available_at = clock_timestamp() + min(base * 2^(attempts-1), max)
//     less up to a quarter of jitter, and the error in last_error; at
//     OUTBOX_MAX_ATTEMPTS it is dead, unless Redis says its job is there
//     (the add may have run with its reply lost: then it is done) or does
//     not answer (then the row stays leased, for a later claim to decide).
//
// A lock conflict (40P01 deadlock_detected, 40001 serialization_failure,
// 55P03 lock_not_available) ends a transaction; the claim, and a delivery
// that has not published yet, are run again, three times in all. A
// delivery lost after its adds (a conflict in a settle statement, a cut
// connection, a COMMIT whose reply never came, a session the server ended)
// writes its verdicts again in a transaction of its own, under the same
// fence: a row another claim took over meanwhile is left alone. A delivery
// that cannot settle at all leaves its rows leased; their lease runs out,
// a later claim adds them again, and BullMQ turns the re-add away while the
// job exists.
//
// # A stopped process
//
// A process stopped (SIGSTOP) inside its delivery holds row locks that
// SKIP LOCKED would pass by for as long as it sleeps, so its claim could
// never be recovered. The session's idle_in_transaction_session_timeout
// makes the server end that session, which releases the locks: while it
// waits on Redis the limit is (lease + publish timeout) / 2 from the lock
// taken at the claim, and once the adds are done it is what is left of the
// lease, so a delivery stopped before its COMMIT is rolled back before its
// lease ends (by a statement's length, at most, for one stopped while it
// waits on Redis). When the process wakes its transaction is gone, and its
// second-chance settle is fenced by the token the takeover replaced.
//
// # Delivery: at least once
//
// The jobId is message_id, the same on every attempt, so a re-add is a
// no-op while the job exists. Once the consumer removed a completed job
// (removeOnComplete), a re-add after a lost settle creates the job again,
// under the same id: the manifest says at-least-once, and the consumer
// drops the duplicate by its id.
//
// # Graceful stop
//
// SIGTERM (or SIGINT) stops the claiming. A delivery under way finishes; a
// claim made after the signal is given back at once (status new, owner,
// token and lease cleared, the attempt returned, last_error 'released:
// graceful stop', available_at untouched), which the manifest declares as
// its release convention. Then the relay exits 0.
//
// # Configuration
//
// The contract's variables with OUTBOX_POSTGRES_URL (or
// OUTBOX_POSTGRES_DSN) for the database, OUTBOX_REDIS_URL, OUTBOX_QUEUES
// (the allowlist), OUTBOX_INSTANCE_ID, OUTBOX_BULL_PREFIX and the seven
// tuning variables. The lease must be at least twice the publish timeout.
// A bad value exits 2 with one line.
//
// # Planted bugs
//
// Chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml each); any other value is
// a configuration error.
//
//	bug                  what it does                                invariant  scenario
//	-------------------  ------------------------------------------  ---------  ----------------
//	unfenced-finalize    the lock and every settle write go by id    I5         zombie
//	                     alone: a zombie woken after its session
//	                     was ended settles again over rows another
//	                     claim took over (or finished)
//	backoff-at-tx-start  the retry's available_at is now() +         I6         lost-reply-redis
//	                     backoff: now() is the delivery
//	                     transaction's start, before the add that
//	                     waited out the publish timeout, so the
//	                     backoff is spent before it is written
//	no-jobid             adds with no custom jobId: BullMQ's         I1         baseline
//	                     counter names each job, and a message is
//	                     published under another id than its own
//
// The PostgreSQL bug asked for first was a lease computed at transaction
// start with now(). In this relay, and in any relay that fences its
// settle by a token, such a lease is shorter than it says, and its row can
// be taken over sooner than its owner expects, but the owner's late writes
// are fenced out: the history shows a claim, a takeover after the written
// lease end, and the owner's writes refused, which is correct at that
// lease; at worst a message is added twice under its own id (at-least-once
// allows it). No invariant can fail it without the owner also being
// unfenced, which is the first plant. The same clock error on the retry's
// not-before time is visible: I6 compares available_at with the time the
// return was written (the trigger's clock_timestamp()), and a backoff
// computed from a transaction start that lies a publish timeout back
// comes out short, or already past.
package main
