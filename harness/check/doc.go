// Package check holds the invariant checkers: pure functions from a recorded
// history.Run to a Result (pass, fail, unknown, not exercised). They read nothing
// but the run, so a stored run folder can be checked again at any time. Each
// invariant's exact definition is the doc comment of its checker, one file per
// invariant (i1_duplicates.go ... i9_untouched.go).
//
// # Reading the history
//
// Outbox transitions are read per event in trigger sequence order and
// classified into moves (moves.go):
//
//   - claim: pending -> processing, or processing -> processing with a new
//     lock token (a takeover of an expired lease). A claim opens a "hold"
//     under its token that lasts until the next move that ends it.
//   - extend: processing -> processing with the same token (a heartbeat that
//     moves locked_until).
//   - failure (transient): processing -> pending with a non-empty last_error
//     that differs from the previous one. Backoff must apply.
//   - release: processing -> pending with last_error unchanged: lease
//     recovery or a graceful release. No backoff is expected.
//   - finalize: into published or failed from a live status.
//   - rewrite: any later update of a row already published or failed.
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
// comparisons across the two clocks allow ClockSlack.
//
// # Gaps and verdicts
//
// A gap (history.Gap) in a source a checker depends on turns what would have
// been a pass into unknown, with the reason. A violation proven by the data
// that was seen stays a fail even with gaps: a duplicate seen is a duplicate.
// Each checker reports at most MaxViolations counterexamples, each with at most
// MaxSteps steps; its Reason says how many there were in all.
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
// # Findings
//
// Findings (findings.go) groups the violations of the failed invariants that
// share an event or a job into one finding per cause, so that one bug that
// breaks I2, I3 and I7 on 17 events is told once, with a headline; the
// grouping rules are its doc comment. A violation may name the rule of
// contract.md it rests on (Violation.Rule); findings carry those rules.
package check
