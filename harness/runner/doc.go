// Package runner runs one scenario against one adapter and decides, invariant
// by invariant, whether the dispatcher kept its promises.
//
// # Phases
//
//  1. setup: open the environment (local private servers, external, or
//     testcontainers), create a fresh database and apply the adapter's schema,
//     install the history triggers, start the embedded fault proxy with one
//     MySQL link and one Redis link per instance slot, start the Redis observer
//     and (when the scenario asks) the consumer, build the adapter, start the
//     instances with the contract's environment pointing at their links.
//  2. load: the workload producer commits the scenario's events at its rate and
//     mix while the scenario's schedule drives the nemesis (process signals,
//     crash points, network faults, server restarts). Every fault is recorded
//     with its start and end.
//  3. heal: every fault is removed, paused instances resumed, dead slots
//     restarted without crash points.
//  4. drain: wait until no event is pending or processing (quiet), or until
//     the drain deadline, which is long enough for a lease, a full backoff and
//     a few polls.
//  5. check: stop the instances gracefully, read the history from MySQL,
//     scan Redis, write the run folder, run the checkers, write the reports.
//
// All randomness comes from one seed: the workload's mix, the schedule's
// choices, the fault proxy's draws, the failpoints' probabilities. The seed,
// the scenario and its parameters are written to the run folder, and the
// command that reproduces the run is in results.json and index.html.
//
// # Exit codes
//
// 0 pass, 1 violation, 2 unknown, 3 harness error (see ExitCode); several
// runs fold into the worst, a violation over an unknown (WorstExit). The
// verdict is check.Fold of the results and the scenario's Exercises: a run
// in which an invariant the scenario exists to exercise had nothing to check
// is unknown, never a pass.
package runner
