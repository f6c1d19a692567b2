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
//     scan Redis, write the history into the run folder, run the checkers.
//
// All randomness comes from one seed: the workload's mix, the schedule's
// choices, the fault proxy's draws, the failpoints' probabilities. The seed,
// the scenario and its parameters are written to the run folder, and the
// command that reproduces the run is in meta.json, and so in the report
// rendered from it.
//
// # The nemesis
//
// The scenario's Script drives a nemesis.Nemesis that the runner builds in
// setup from the run's supervisor, fault-proxy links, recorder, observer and
// database (nemesis.Config), seeded from the run's seed. Package nemesis
// documents the faults, the traps for black-box dispatchers and the fault
// records they leave in faults.jsonl. The runner heals what it left (heal
// phase: proxy faults removed, open fault windows closed, dead slots
// revived) before the drain.
//
// A scenario needing a capability the adapter lacks (Needs: crash points,
// graceful SIGTERM, server control, an in-place MySQL restart, a clock skew
// mechanism (NeedClockSkew), the ordering promise (NeedOrdering), a MySQL
// server whose time zone the harness may set (NeedServerZone)) is
// skipped with the reason (Missing).
//
// # Time zones
//
// A scenario with Zones (zones.go) runs the store's server and the
// instances in different zones: setup sets the server's global time_zone
// (SET GLOBAL, through the environment's admin connection, before any
// session of the run opens, so the harness's and the instances' sessions
// all start in it; the earlier value is restored when the run ends) and
// gives each instance TZ. It reads both back (the global value, a new
// session's NOW() against UTC_TIMESTAMP(), the TZ's offset) into
// Meta.Zones, which the landing requirements zone-lease and zone-backoff
// read. The history is UTC whatever the zone (package observe).
//
// # What a run returns
//
// Run writes the run folder's history (meta.json and the *.jsonl files of
// package history) and returns it with the checkers' results and the
// landing (Outcome). It renders nothing: the callers (cmd/outboxchaos,
// harness/chaostest) write index.html, results.json and junit.xml from the
// Outcome with package reports, so that defining or running a scenario
// does not pull in HTML rendering.
//
// # Exit codes
//
// 0 pass, 1 violation, 2 unknown, 3 harness error (see ExitCode); several
// runs fold into the worst, a violation over an unknown (WorstExit). The
// verdict is check.Fold of the results and the scenario's Exercises: a run
// in which an invariant the scenario exists to exercise had nothing to check
// is unknown, never a pass.
package runner
