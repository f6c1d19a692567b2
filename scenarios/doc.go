// Package scenarios is the named scenario catalog: each entry is a short,
// readable definition of the instances, the workload, the fault schedule, the
// invariants it must keep (all of I1-I9 unless it waives one, with the reason)
// and its parameters. `outboxchaos list` prints them.
//
// A schedule is plain Go against runner.Nemesis: kill, pause, terminate,
// crash at a named point, add and remove network faults per dependency and per
// instance link, restart a server, wait. Every choice it makes comes from the
// run's seeded randomness (Nemesis.Rand, Nemesis.Pick), so a seed replays it.
package scenarios
