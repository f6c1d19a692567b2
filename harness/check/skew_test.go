package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// skewedRun: d2r1 runs under a clock-skew fault; its claim of event 1 gets
// the lease end leaseEnd (ms from t0, database clock).
func skewedRun(leaseEnd int) history.Run {
	b := newBuilder("clock-skew")
	b.start(0, "d1", "d2r1")
	b.fault(faultClockSkew, "d2", 50, 2000)
	b.run.Faults[0].Params = map[string]string{"offset": "-10s", "mechanism": "go-overlay", "instance": "d2r1"}
	b.produce(1, "j-1", history.KindValid, 10)
	b.claim(1, "d2r1", 100)
	until := ms(leaseEnd)
	b.rows[1].lockedUntil = &until
	b.run.Transitions[len(b.run.Transitions)-1].LockedUntil = &until
	b.add("ai-default", "j-1", "j-1", 120).publish(1, 140)
	return b.finish(3000, 3500, true)
}

func TestExclusiveFailsALeaseOverBeforeItsClaim(t *testing.T) {
	r := Check(I5, skewedRun(100-8000))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Equal(t, "Event 1 was claimed by d2r1 at 10:00:00.100 with a lease ending at 09:59:52.100, 8s before the claim on the database clock: the claim excluded nobody. The harness had set d2r1's clock -10s off (go-overlay).",
		r.Violations[0].Summary)
}

func TestExclusivePassesASkewedInstanceWithADatabaseLease(t *testing.T) {
	run := skewedRun(2100)
	require.Equal(t, Pass, Check(I5, run).Verdict)
	ls := CheckLanding(withLanding(run, history.Requirement{Fault: history.LandClockSkew, AtLeast: 1}))
	require.True(t, ls[0].Met, ls[0].Reason)
	require.Equal(t, "1 claim made by an instance while its clock was skewed; 1 needed", ls[0].Reason)
}

// The rule rests on the database clock alone: the same lease without any
// skew recorded still fails, only the summary's cause is left out.
func TestExclusiveLeaseInThePastNeedsNoSkewRecord(t *testing.T) {
	run := skewedRun(0)
	run.Faults = nil
	r := Check(I5, run)
	require.Equal(t, Fail, r.Verdict)
	require.NotContains(t, r.Violations[0].Summary, "The harness had set")
	ls := CheckLanding(withLanding(run, history.Requirement{Fault: history.LandClockSkew, AtLeast: 1}))
	require.False(t, ls[0].Met, "no skew recorded: the fault did not land")
}

// Within DBSlack of the claim is tolerated.
func TestExclusiveToleratesALeaseEndWithinSlack(t *testing.T) {
	require.Equal(t, Pass, Check(I5, skewedRun(100-int(DBSlack/time.Millisecond)+10)).Verdict)
}

func withLanding(run history.Run, reqs ...history.Requirement) history.Run {
	run.Meta.Landing = reqs
	return run
}
