package chaostest_test

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/chaostest"
)

// A team's own test, in the dispatcher's repository beside its manifest:
// each scenario is a subtest (TestOutboxSurvivesChaos/crash-window, ...),
// and a failing one says what happened to which event and how to replay
// it. Run it with `go test -run TestOutboxSurvivesChaos -v ./...`; in CI add
// -chaostest.out=chaos-runs to keep the run folders and -chaostest.strict to
// fail on an unknown verdict. The example only compiles: a run starts
// private servers and takes seconds to minutes.
func ExampleRun() {
	TestOutboxSurvivesChaos := func(t *testing.T) {
		chaostest.Run(t, "deploy/outboxchaos.yaml", // a manifest path, "reference", or "mutant:NAME"
			chaostest.Scenarios("crash-window", "zombie"), // default: the whole catalog
			chaostest.Seed(42))                            // default: -chaostest.seed, else the clock
	}
	_ = TestOutboxSurvivesChaos
}
