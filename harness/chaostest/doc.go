// Package chaostest runs the outboxchaos scenarios from a team's own Go
// tests: each scenario is a subtest, and a failing one says in plain words
// what went wrong and how to reproduce it.
//
// # Example
//
// In the dispatcher's repository, beside its manifest (see the README's
// "Test your own dispatcher"):
//
//	package outbox_test
//
//	import (
//		"testing"
//
//		"github.com/outboxchaos/outboxchaos/harness/chaostest"
//	)
//
//	func TestOutboxSurvivesChaos(t *testing.T) {
//		chaostest.Run(t, "deploy/outboxchaos.yaml", // a manifest path, "reference", or "mutant:NAME"
//			chaostest.Scenarios("crash-window", "zombie"), // default: the whole catalog
//			chaostest.Seed(42))                            // default: from -chaostest.seed or the clock
//	}
//
// and then
//
//	go test -run TestOutboxSurvivesChaos -v ./...
//	go test -run TestOutboxSurvivesChaos -chaostest.out=chaos-runs -chaostest.strict ./...   # in CI
//
// gives the subtests TestOutboxSurvivesChaos/crash-window and
// TestOutboxSurvivesChaos/zombie.
//
// # What Run does
//
// Run resolves the adapter as `outboxchaos --adapter` does (adapters.Open)
// and the scenarios as `outboxchaos chaos --scenario` does
// (scenarios.Select: catalog order, an unknown name is an error that lists
// the names). It opens one environment for all its subtests
// (env.ConfigFromEnv: the private mariadbd and redis-server of package
// localenv unless OUTBOXCHAOS_ENV or OUTBOXCHAOS_MYSQL_DSN and
// OUTBOXCHAOS_REDIS_URL say otherwise) and closes it when the test ends.
// Each subtest is one runner.Run with its own database and run folder, whose
// report (index.html, results.json, junit.xml) the subtest then renders
// with package reports from the history and results the run returned; the
// dispatcher is built once per Run. Scenario i of the selection gets
// seed+i, like `outboxchaos chaos --seed`, and the seed is logged.
//
// Like cmd/outboxchaos, this package is an entry point, not part of the
// harness's core: it links package adapters to resolve "reference" and
// "mutant:NAME". Those adapters build and start the dispatchers as
// programs; none of the dispatchers' own code is linked in (no package of
// reference/ is among this package's dependencies, as for every package of
// harness/ but bench: TestHarnessLinksNoDispatcher). No other package of
// harness/ imports it.
//
// A subtest's result is the run's verdict:
//   - pass: the subtest passes (its log names the run folder);
//   - fail: the subtest fails with the findings: the cause in one line,
//     the invariants it breaks, the events, jobs and instances it is about,
//     the steps that prove it in time order (seconds since the run
//     started), the run folder (index.html draws the timeline) and the
//     `outboxchaos run --scenario S --adapter A --seed N --out DIR`
//     command that reproduces it;
//   - unknown (nothing to check, a fault that did not land, an exercised
//     invariant with nothing to check): the subtest is skipped with the
//     reason, unless -chaostest.strict is given, when it fails;
//   - a capability the scenario needs and the adapter or environment lacks
//     (crash points, a graceful SIGTERM, servers it can restart): the
//     subtest is skipped with the reason;
//   - a harness error (a server that does not start, a build that fails):
//     the subtest fails with the error.
//
// # Flags
//
//	-chaostest.seed N    the seed when Seed is not given (default: the clock)
//	-chaostest.out DIR   keep the run folders in DIR/<test name>/<scenario>;
//	                     without it they go under t.TempDir() and are removed
//	-chaostest.strict    an unknown verdict fails instead of skipping
//
// Under -v the runner's progress lines go to the test log.
//
// # -short
//
// With `go test -short` only ShortScenarios run: baseline, lost-reply-redis
// and poison, a few seconds of load each and no crash points needed (no
// faults; one lost Redis reply per instance; half the events poison). The
// other selected scenarios are skipped, saying so; when none is left, no
// server is started.
//
// # Interrupts and timeouts
//
// Every run uses one context that ends with the test (t.Context), on the
// first SIGINT or SIGTERM (Ctrl-C; a second one gets Go's default), and a
// grace period (a tenth of the time left, 5 s to 30 s) before the test
// binary's -timeout deadline, at which the binary would panic without
// running cleanups. The run then stops, its instances are killed and its
// database dropped, the subtest fails saying why, and the test's cleanups
// stop the private servers and remove their folders and t.TempDir(): no
// process and no folder is left behind. The private servers and instances
// also die with the test binary if it is killed (Pdeathsig).
package chaostest
