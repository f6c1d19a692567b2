// Package scenarios is the named scenario catalog: each entry is a short,
// readable definition of the instances, the workload, the fault schedule, the
// invariants it must keep (all of I1-I9 unless it waives one, with the reason),
// the invariants it exists to exercise (Exercises: only what its faults or its
// workload are meant to produce, e.g. I6 and I7 for redis-outage; a run in
// which one of them had nothing to check is unknown, not a pass) and its
// parameters. `outboxchaos list` prints them.
//
// A schedule is plain Go against nemesis.Nemesis: kill, pause, terminate,
// crash at a named point, add and remove network faults per dependency and per
// instance link, restart a server, wait. Every choice it makes comes from the
// run's seeded randomness (Nemesis.Rand, Nemesis.Pick), so a seed replays it.
//
// # Random schedules and the property tests
//
// A Schedule (steps.go) is a list of Steps a person can read: "kill d2 for
// 300ms", "redis latency 150ms on d1 for 2s", "crash d1 at after-enqueue
// (1st hit)", "restart redis (down 1s)", "produce 50 poison events". Each
// step kind is a type of its own in a file of its own (Wait, Kill, Pause,
// Term, Crash, Window, Network, Restart, Skew, Hold, Produce:
// step_<kind>.go) with its
// sentence, its validation, its run and how the generator draws it; the
// generator's menu (random.go) lists each once. A Network step carries a
// faultproxy.Fault. Steps run one after another, each ending its own fault;
// produce steps are not timed: they set the workload, which the producer
// commits at an even rate over the schedule. Generated schedules stay within ScheduleBudget (8 s)
// and every outage inside the default retry budget, so the reference must
// pass every one: a failure is a finding, never a false alarm.
//
// The "random" catalog entry (Random) draws its schedule at run time from
// the run's seeded randomness and writes it to the run's parameters
// (params.schedule in results.json and on the page), so
// `outboxchaos run --scenario random --seed S` replays the same schedule.
//
// property_test.go is the state-machine test: rapid draws schedules (every
// step kind, on both instances, MySQL and Redis), runs each against the
// reference on one private environment (each run gets a fresh database and
// a flushed Redis, so no server restarts between checks), and after heal and
// drain requires every invariant. A failure shrinks to a minimal schedule;
// rapid prints it with the failing invariants and writes a fail file.
//
// Replay by seed, or by fail file:
//
//	go test ./scenarios -run TestPropertyReference -rapid.seed=N
//	go test ./scenarios -run TestPropertyReference -rapid.failfile=testdata/rapid/TestPropertyReferenceKeepsEveryInvariant/<file>.fail
//
// A seed replays the same draws only while the generator is unchanged:
// it asks the same questions (label and range) in the same order, which
// TestRandomDrawsStayInOrder pins. The round-1 faults, the store's
// restart in place (Space.RestartStore), its SQL error packets
// (Space.SQLErrors), clock skew (Space.SkewClock) and a held finalize
// COMMIT (Space.HoldCommits), are the last entries of the menu and of the
// store's faults, so a space without them asks what it asked before they
// were added. How
// many schedules: -rapid.checks=N, else OUTBOXCHAOS_PROPERTY_CHECKS, else
// 3 (so `make test` stays short); `make chaos-long` sets
// OUTBOXCHAOS_PROPERTY_CHECKS high to run many.
//
// The regression corpus is testdata/rapid/TestPropertyReferenceKeepsEveryInvariant/:
// rapid itself replays every TestPropertyReferenceKeepsEveryInvariant-*.fail
// there against the reference before it draws new schedules, so every
// schedule that ever broke something stays a test. To add one, copy the
// fail file rapid names in its report there, named
// TestPropertyReferenceKeepsEveryInvariant-<what>.fail; a file found on a
// mutant is named ...-mutant-<mutant>.fail, and
// TestPropertyCorpusReproducesItsMutants checks it still makes that mutant
// fail. TestPropertyFindsAndShrinksAMutant proves the property can fail: it
// must catch a mutant and shrink its schedule to a few steps; it removes the
// fail file it writes unless OUTBOXCHAOS_KEEP_FAILFILES=1.
package scenarios
