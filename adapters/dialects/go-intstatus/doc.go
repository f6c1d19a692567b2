// Command go-intstatus is a dialect relay (adapters/dialects, issue 22)
// written on its own for an outbox of another shape than the contract's:
// integer state codes, binary uuid keys the application writes, and no jobs
// table. It publishes each row as a BullMQ job.
//
// # The outbox (schema.sql)
//
// outbox_messages holds one row per message: id BINARY(16) (a uuid the
// application writes), topic (the BullMQ queue), payload (JSON), state,
// tries, next_try_at, owner, lease_until, error, sent_at, created_at.
//
//	state  meaning    manifest word
//	-----  ---------  -------------
//	0      new        pending
//	1      in flight  processing (owner holds it until lease_until)
//	2      sent       published
//	3      dead       failed
//
// The row alone carries the message: the job's id is the row's id as a uuid
// in 8-4-4-4-12 lower-case text, its data is the payload as stored, its
// queue is the topic. With no jobs table nothing can be poison; a topic
// outside OUTBOX_QUEUES is the one permanent failure (dead at once, no
// retry helps), and the harness never writes one.
//
// # Claim, publish, settle
//
// A round is three steps, each its own short READ COMMITTED transaction or
// Redis round trip, every time on the database clock:
//
//  1. Claim: SELECT ... WHERE state = 0 AND next_try_at <= NOW(6) ORDER BY
//     next_try_at LIMIT n FOR UPDATE SKIP LOCKED, then, if the batch has
//     room, the same over state = 1 AND lease_until < NOW(6) (an owner let
//     its lease run out: it is taken over directly, with no pass through
//     0); then one UPDATE sets state = 1, owner = OUTBOX_INSTANCE_ID,
//     lease_until = NOW(6) + lease and tries = tries + 1 (tries count
//     claims). Each SELECT walks its own index in order, so it locks no
//     more than it takes and skips rows others hold, an open INSERT's too.
//  2. Publish: one script call per message, pipelined, bounded by
//     OUTBOX_PUBLISH_TIMEOUT (sink.go; written from the BullMQ wire facts:
//     hash, id counter, "added"/"waiting" events, wait or paused list,
//     marker; a duplicate id writes "duplicated" and nothing else).
//  3. Settle, in one transaction, every UPDATE fenced by WHERE owner = me
//     AND state = 1 (a row taken over, or settled by another, is left
//     alone): published rows to 2; failed ones back to 0 with next_try_at =
//     NOW(6) + min(base * 2^(tries-1), max) less up to a quarter of jitter
//     and the error kept; at tries = OUTBOX_MAX_ATTEMPTS to 3, but only
//     after Redis says it holds no sent record for the message (its add may
//     have run with the reply lost: with the record the row is sent; with
//     no answer the claim is left to its lease, and a later try decides).
//
// A deadlock or lock wait timeout (1213, 1205) rolls a transaction back; it
// is run again, three times in all. A settle that fails otherwise leaves its
// claims in flight: their lease runs out and a later claim publishes them
// again, which the sent record turns into a no-op.
//
// # Exactly once without a jobs table
//
// The manifest promises exactly-once-effect: a re-publish of a message must
// not make a second job. BullMQ turns a re-add with the same jobId away only
// while the job hash exists; a consumer with removeOnComplete deletes it,
// and a relay that crashed between its add and its settle then adds the job
// again (the dedupe-horizon scenario). With no jobs table to ask, the relay
// keeps its own proof in Redis, written by the same script as the add, so
// the two are one atomic step: the sent record <prefix>:<topic>:relay-sent:<jobId>
// (a string; the ':' after the queue keeps BullMQ readers from taking it
// for a job), with a lifetime of OUTBOX_SENT_TTL (default 168h). The script
// looks for it before it looks for the job hash, and a hit is a publish
// already made ("sent", nothing written). The promise holds while both are
// true, and is honest only with them stated:
//
//   - the re-publish comes within OUTBOX_SENT_TTL of the add: a claim is
//     re-published a lease after its owner died, so a week is far enough
//     unless the relay is down longer than that with claims in flight;
//   - Redis keeps what it acknowledged (persistence on, maxmemory-policy
//     noeviction: a volatile-* policy evicts sent records first, because
//     they are the keys with a ttl).
//
// # Graceful stop
//
// SIGTERM (or SIGINT) stops the claiming. The round in progress ends first:
// if its claim came back after the signal, it releases that claim (state 0,
// owner and lease cleared, the try given back, next_try_at untouched, so the
// rows are due at once); else it publishes and settles as usual. Then the
// relay exits 0.
//
// # Configuration
//
// The contract's variables (OUTBOX_MYSQL_DSN, OUTBOX_REDIS_URL,
// OUTBOX_QUEUES as the topic allowlist, OUTBOX_INSTANCE_ID,
// OUTBOX_BULL_PREFIX and the seven tuning variables), plus OUTBOX_SENT_TTL.
// The lease must be at least twice the publish timeout and the sent-record
// lifetime longer than the lease. A bad value exits 2 with one line.
//
// # Planted bugs
//
// Chosen by OUTBOXCHAOS_PLANT (manifest-<bug>.yaml each); any other value is
// a configuration error.
//
//	bug            what it does                                      invariant  scenario
//	-------------  ------------------------------------------------  ---------  --------------
//	claims-sent    the claim's WHERE is state <> 1 (meant: not in    I5         baseline
//	               flight), so sent and dead rows are claimed again:
//	               a finalized row back in flight
//	retry-as-dead  the transient-failure write sets the code for     I7         queue-error
//	               dead (3) instead of new (0): valid events die at
//	               their first failure, before max attempts
//	jobid-only     no sent record: a re-publish trusts BullMQ's      I1         dedupe-horizon
//	               jobId dedupe alone, which is gone once the
//	               consumer removed the completed job
package main
