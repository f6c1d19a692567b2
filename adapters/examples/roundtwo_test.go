package examples_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// roundTwo are the round-2 scenarios (issue 25) every example runs through,
// each with what roomservice fails by design, as the README says: its fixed
// retry interval is no backoff (I6), spends its attempts inside Redis's
// transient states until events end failed (I2), and its failure text, cut
// to 1024 bytes, is refused by a narrowed last_error and left to its lease
// for ever (I4). The Node.js example passes each with every requirement
// landed, as the reference does in package scenarios.
var roundTwo = []struct {
	scenario string
	// roomFails are the invariants roomservice fails; nil: it passes.
	roomFails []string
	// roomLands: roomservice's run must land too; roomOnly: it fails
	// only roomFails, every other invariant holds.
	roomLands, roomOnly bool
	// roomAttempts, when set, is roomservice's MaxAttempts in place of
	// the scenario's.
	roomAttempts int
}{
	// Redis answers every write with READONLY, then LOADING, then OOM,
	// 1.5 s each, then is really over its memory limit for 1.5 s. The
	// scenario allows 14 attempts, so that a backoff that grows is never
	// spent inside the states; roomservice's retry every 100 ms plus a poll
	// spends them inside one state only on a quiet machine (CI saw 9 and 8
	// of 10 under load), so it runs with the contract's default 6, which
	// it spends in any state's first second.
	{"transient-states", []string{"I2", "I6"}, true, false, 6},
	// Links that take every byte and answer nothing: a stuck owner's
	// claim taken over while its link was held.
	{"half-open", nil, true, true, 0},
	// The server in +07:00, the instances in America/New_York: each
	// example writes its leases and backoffs with NOW(6).
	{"time-zones", []string{"I6"}, true, true, 0},
	// last_error narrowed to VARCHAR(48), poison whose reason quotes a
	// 64-character queue name.
	{"failure-write", []string{"I4"}, false, false, 0},
	// Lease and backoff columns altered to whole seconds: each example
	// writes NOW(6) + span and fences by its token. roomservice's fixed
	// retry is the scenario's 2 s base, and the 3 s break fails an event
	// at most twice: within the bounds I6 can tell on whole seconds.
	{"whole-seconds", nil, true, true, 0},
	// Redis acknowledges adds while its append-only file is off, then is
	// killed and restarted from the file: the jobs it lost are Redis's,
	// and every example passes.
	{"redis-loses-adds", nil, true, true, 0},
}

// landingTries bounds the runs of one example in one scenario whose faults
// did not all land.
const landingTries = 3

func TestExamplesThroughTheRoundTwoScenarios(t *testing.T) {
	localtest.EndToEndGroup(t)
	for _, sc := range roundTwo {
		for _, ex := range examples() {
			t.Run(sc.scenario+"/"+ex.name, func(t *testing.T) {
				localtest.EndToEnd(t)
				if ex.node {
					requireNode(t)
				}
				room := ex.name == "roomservice"
				adjust := func(s *runner.Scenario) {
					if room && sc.roomAttempts > 0 {
						s.Tuning.MaxAttempts = sc.roomAttempts
					}
				}
				o := runSized(t, ex, sc.scenario, adjust)
				// A fault that did not land (a loaded machine: the break
				// came and went while the instances were slow) leaves the
				// run unknown, not wrong: it runs again, and a run that
				// failed an invariant is never run again.
				for try := 1; try < landingTries && len(check.Unlanded(o.Landing)) > 0 && o.Verdict != check.Fail; try++ {
					t.Logf("try %d: a fault did not land (%s); running it again", try, check.Unlanded(o.Landing)[0].Reason)
					o = runSized(t, ex, sc.scenario, adjust)
				}
				require.NotEmpty(t, o.Landing)
				got, why := verdicts(o)
				if !room || sc.roomLands {
					for _, l := range o.Landing {
						require.True(t, l.Met, "%s: %s", l.Fault, l.Reason)
					}
				}
				if !room || sc.roomFails == nil {
					require.Equal(t, allPass(), held(got), why)
					require.Equal(t, check.Pass, o.Verdict, o.Reason)
					return
				}
				want := held(got)
				if sc.roomOnly {
					want = allPass()
				}
				for _, id := range sc.roomFails {
					want[id] = check.Fail
				}
				require.Equal(t, want, held(got), why)
				require.Equal(t, check.Fail, o.Verdict)
			})
		}
	}
}

// The examples that promise durability: wait (the reference's manifest
// and the Node.js example's, each with its own WAIT) run redis-loses-adds
// with a replica. Redis loses adds it acknowledged, yet every published
// event whose job it lost was published through an add after the restart:
// the WAIT held each event back while only the primary had its job.
func TestWaitingExamplesLoseNoPublishedJob(t *testing.T) {
	localtest.EndToEndGroup(t)
	for _, c := range []struct {
		manifest string
		node     bool
	}{{"reference-wait.yaml", false}, {"node-dispatcher/manifest-wait.yaml", true}} {
		t.Run(c.manifest, func(t *testing.T) {
			localtest.EndToEnd(t)
			if c.node {
				requireNode(t)
			}
			a := load(t, c.manifest)
			require.Equal(t, supervisor.DurabilityWait, a.Capabilities().Durability)
			o := runScenario(t, a, "redis-loses-adds", 800)
			for try := 1; try < landingTries && len(check.Unlanded(o.Landing)) > 0 && o.Verdict != check.Fail; try++ {
				t.Logf("try %d: a fault did not land (%s); running it again", try, check.Unlanded(o.Landing)[0].Reason)
				o = runScenario(t, a, "redis-loses-adds", 800)
			}
			got, why := verdicts(o)
			require.Equal(t, allPass(), held(got), why)
			require.Equal(t, check.Pass, o.Verdict, o.Reason)
			readded := 0
			for _, l := range check.LostAdds(o.History) {
				if l.Published {
					require.False(t, l.Recreated.IsZero(), "published, lost, never added again: %s", l)
					readded++
				}
			}
			require.Positive(t, readded, "no event was held back by its WAIT and added again after the restart")
		})
	}
}
