// Package check holds the invariant checkers: pure functions from a recorded
// history.Run to a Result (pass, fail, unknown, not exercised). They read nothing
// but the run, so a stored run folder can be checked again at any time. Each
// invariant's exact definition is the doc comment of its checker, one file per
// invariant (i1_duplicates.go ... i9_untouched.go).
//
// # Reading the history: moves
//
// Outbox transitions are read per event in trigger sequence order and
// classified once, in moves.go; every checker reads that one answer. The
// rules rest only on what happened: the database clock, leases and tokens,
// who held a row and who wrote it, and the harness's own records (fault windows, the signals
// it sent). Never on a dispatcher's wording: last_error is read only through
// what the adapter declares (Meta.Conventions).
//
//   - claim: pending -> processing. A claim opens a "hold" that lasts until
//     the next move that ends it; its lease end is locked_until, moved by
//     extensions.
//   - takeover: processing -> processing under a new owner: a new non-empty
//     lock token, or, for a schema without a lock_token column (fenced by
//     locked_by and locked_until; the token is then empty), a locked_by other
//     than the hold's owner. It opens a new hold.
//   - extend: processing -> processing under the same owner.
//   - finalize: into published or failed from a live status.
//   - rewrite: any later update of a row already published or failed.
//
// Who wrote a row is Transition.Writer: the instance slot whose own MySQL
// user made the change (all of a slot's instances, restarts too, share its
// user), or the harness. A hold's slot is the writer of its claim or
// takeover: a dispatcher claims for itself. When the run could not give
// slots their own users, or for an older history, no writer is recorded and
// the rule that needs it does not apply.
//
// A return to pending (processing -> pending) that ends hold h is, in this
// order of rules ("slack" is DBSlack plus any MySQL latency in effect):
//
//  1. recovery: written at or after h's lease end, less slack, whatever
//     last_error says and whoever writes it (another instance, or the
//     owner's own next round). No backoff is owed.
//  2. seized: written before that by another slot than h's (both writers
//     recorded): an early takeover, whatever else the write looks like; I5
//     fails it. Written by h's own slot (the owner, or a restart of it
//     after the owner died), the rules below decide, as without writers.
//  3. transient failure: before the lease end, with available_at moved more
//     than FutureSlack into the future. Backoff applies (I6), it counts toward the
//     maximum attempts (I7), and a poison event must never have one (I4).
//  4. release: before the lease end with available_at not in the future,
//     when the harness had sent the owner SIGTERM, or when nothing failed for
//     the owner from its claim to the return (widened by ClockSlack): no
//     fault whose target does not name another instance (so faults on
//     "redis", "mysql", the owner or its links count), no signal but SIGTERM,
//     no MySQL cut. No backoff is owed.
//  5. otherwise the fault proxy's command log decides, when the run has
//     one ("Rule 5: the command log" below): a transient failure when the
//     owner's last command for the event's job failed (or was answered and
//     the owner's write on MySQL then failed), a release when no
//     command named the job and the owner's links were up. Otherwise, and
//     always without the log, the history cannot tell a release from a
//     retry without backoff. With declared conventions, a return whose
//     last_error matches a declared release or recovery (a prefix, or
//     unchanged when the convention keeps it) is a release, and one that
//     matches none is a transient failure. With nothing declared it is
//     unclear: every checker it matters to is unknown for that event, with
//     the reason (naming the command and its outcome when the log saw
//     one), not a fail.
//
// # Rule 5: the command log
//
// A run recorded through the fault proxy has its command log
// (Meta.Commands, and no "commands" gap; proxyfacts.go). It is read only
// for an adapter that declares no release or recovery conventions: a
// declaration decides as it did before the log (the reference declares
// that a give-back after Redis answered nothing is a release). The log holds, per instance
// slot, every command the slot sent through its Redis link that names a
// job of the run, and every command that failed there, with its outcome:
// answered, error reply, reply dropped by a fault, connection ended before
// the reply (history.Command). It is read over the hold, from its claim to
// the return widened by ClockSlack, on the slot of h.
//
// Transient failure: the slot's last command naming the event's job
// failed (error reply, dropped, or no reply before its connection ended),
// its outcome came by the return, and the owner ran throughout (no signal,
// no restart of the slot: a restart's own return is not the failed
// command's retry). I6 applies. A return that takes back the attempt its
// claim counted (attempts lower than the claim's) stays in doubt: the
// dispatcher says the claim spent nothing, as a breaker's give-back after
// no answer does.
//
// Release: no command named the job and the owner's links were up: no
// command naming no job failed on its Redis link, no signal but SIGTERM,
// SIGSTOP and SIGCONT, no MySQL cut, and every fault in effect that does
// not name another instance only slows links (latency, bandwidth,
// slicer), only holds the owner with its links up (a pause or a pause
// trap; a finalize trap whose held COMMIT completed), or is a Redis
// fault, on "redis" or a Redis link, whose every effect on a command the
// log records (queue-error and redis-state refusals are error replies, a
// lost reply is dropped). The event never started, so nothing failed for
// it. A fault that takes a link down (down, blackhole, reset), any other
// store fault (a held COMMIT cut with its connection among them), or a
// kill keeps the doubt: a command may never have reached the proxy. A
// paused instance sends nothing while it is stopped and everything after
// through the proxy, so a pause hides no command.
//
// Failed finalize: the slot's last command naming the job was answered,
// and then a write statement of the slot (UPDATE, INSERT, DELETE,
// REPLACE, COMMIT) failed on its store link, MySQL or PostgreSQL (records
// with Store set: an error reply, the server's or a fault's; a reply
// dropped; none before the connection ended), sent after that command and within the hold's
// window, its outcome by the return; the owner ran throughout. The
// owner's write that followed the add did not land: a transient failure,
// and I6 applies, with the same exception for an attempt taken back. The
// log does not say which event a failed statement was about, so it is
// read only after the event's own answered add: a failed write never
// turns a release (no command named the job) into a failure.
//
// The log's limits: an outcome is what the proxy read from Redis before
// the link's own faults act on the reply (a downstream latency or
// blackhole), so a reply the client never got in time reads as answered,
// which keeps a return in doubt, never a release. A command the client
// gave up on before sending it (a pool or dial timeout under a delay,
// the handshake's replies read as answered) leaves no record: its
// return reads as a release, as the event never reached Redis. A COMMIT
// whose reply lost-reply-postgres-commit dropped is not in the log (its
// reader sits on the server's side of the fault), so that return keeps
// the doubt (the add was answered), never a release. Rule 4 decides before the log: with no fault in effect a
// return is a release even after a failed statement.
//
// A declaration only settles what rule 5 leaves in doubt; it never turns a
// proven violation (a failure the log shows) into a pass. Declarations (declarations.go) names, for a run with a required
// invariant unknown by rule 5, the conventions block that would settle it,
// filled with the last_error prefixes those returns wrote (harness/declare
// reads and renders them). Failures are counted from these moves, never from the attempts
// column, so a dispatcher may count attempts at claim or at failure.
//
// A creation of a BullMQ job is an "added" entry of a queue's events stream or
// a "new" keyspace notification of a job hash (creations.go). The two sources
// see the same creations, so they are paired per queue and BullMQ id before
// they are counted; a creation is matched to an ai_jobs row by its BullMQ id
// and by its data.jobId, because a dispatcher that forgets the jobId gets
// numeric ids.
//
// # Clocks and slack
//
// Transition times, available_at and locked_until are on the database clock;
// stream entries, key notes, takes, faults and process events are on the
// harness clock. Both come from one machine. Comparisons within the database
// clock allow DBSlack plus any MySQL latency fault in effect (a dispatcher may
// compute a time in the application and write it over a slow link);
// comparisons across the two clocks allow ClockSlack. A lease or backoff
// column that keeps less than microseconds (history.Model.Precision, read
// from the server's catalog: a DATETIME(0) keeps whole seconds) adds one of
// its steps to every comparison with a time read back from it, since the
// server cut or rounded what the dispatcher wrote.
//
// # Gaps and verdicts
//
// A gap (history.Gap) in a source a checker depends on turns what would have
// been a pass into unknown, with the reason. A violation proven by the data
// that was seen stays a fail even with gaps: a duplicate seen is a duplicate.
// Each checker reports at most MaxViolations counterexamples, each with at most
// MaxSteps steps; its Reason says how many there were in all.
//
// A gap in Redis's observation recorded inside a quiet restart
// (history.FaultQuietRestart: every instance's Redis link cut, the
// observers flushed before and back after) hid nothing an instance wrote,
// and is not counted (redisloss.go); neither is an events stream entry
// recorded twice (a reader re-reading a stream its server restored from
// an older file).
//
// # Redis's own losses
//
// A job created while the harness had Redis's append-only file off
// (history.FaultRedisUnpersisted) and gone once Redis restarted is a lost
// add (LostAdds): the environment's doing. I3 takes its creation as the
// job's; I1 does not count it when the job is created again. The report
// lists the lost adds with LostAddsAdvice. A dispatcher that declares
// durability: wait (history.Meta.Durability) has no such excuse: the
// harness ran a replica for its WAIT and cut it off first, so an event
// published while its job is a lost add, never created again nor taken
// by a worker, fails I3 (judgeDurable).
//
// # Not exercised is not pass
//
// An invariant the run gave nothing to check is NotExercised, with the
// reason, never a pass: I1 with no BullMQ job created, I2 with no valid event,
// I3 with no event, I4 with no poison event, I5 with no claim, I6 with no
// transient failure, I7 when no event reached the maximum attempts through
// transient failures and no valid event ended failed, I8 with no dead owner's
// expired claim judged, I9 with no job hash read, and I6 and I7 when the
// adapter does not honour the tuning they rest on. A violation still makes a
// fail and a gap still makes unknown: "nothing happened" is only said when
// nothing could have been missed.
//
// Fold turns a run's results into its verdict: fail when a required (not
// waived) result fails; unknown when one is unknown, when no required result
// passed at all, or when an invariant the scenario exists to exercise
// (history.Meta.Exercises, e.g. I6 and I7 for redis-outage) is not
// exercised, with a reason naming it; else pass. A not-exercised invariant
// the scenario does not name fails nothing and is shown as its own state.
//
// # Opt-in invariants
//
// Optional lists invariants after I1..I9 that judge a promise only some
// dispatchers make: I10, per-aggregate order (i10_ordering.go), for a
// dispatcher that declares ordering: per-aggregate (history.Meta.Ordering).
// Run checks one only when the run's dispatcher declares it; its checker
// alone, given a run without the declaration, says not exercised.
//
// # Findings
//
// Findings (findings.go) groups the violations of the failed invariants that
// share an event or a job into one finding per cause, so that one bug that
// breaks I2, I3 and I7 on 17 events is told once, with a headline; the
// grouping rules are its doc comment. A violation may name the rule of
// docs/contract.md it rests on (Violation.Rule); findings carry those rules.
package check
