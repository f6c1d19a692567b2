package check

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// runsDir holds whole recorded runs (the reports' fixtures), stored in the
// history folder format.
var runsDir = filepath.Join("..", "..", "testdata", "runs")

func loadRun(t *testing.T, name string) history.Run {
	t.Helper()
	run, err := history.Load(filepath.Join(runsDir, name))
	require.NoError(t, err)
	return run
}

// In fail-several d3 is killed holding event 23; its lease runs out at
// 3.322 s, under a MySQL latency fault that ends at 3.4 s, and nobody takes
// the claim over before the run ends at 6.1 s.
func TestStoredRunsLeaseRecovery(t *testing.T) {
	r := Check(I8, loadRun(t, "fail-several"))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	checkResultShape(t, r)
	require.Len(t, r.Violations, 1)
	v := r.Violations[0]
	require.Equal(t, int64(23), v.EventID)
	require.Equal(t, []string{"d3"}, v.Instances)
	require.Contains(t, v.Summary, "Event 23's claim by d3")
	require.Contains(t, v.Summary, "d3 was killed")
	require.Contains(t, v.Summary, "ran out at 10:00:03.322 and was never taken over")

	r = Check(I8, loadRun(t, "pass-baseline"))
	require.Equal(t, NotExercised, r.Verdict, r.Reason)
	require.Equal(t, "no dead owner's claim expired", r.Reason)
}

func TestMySQLLatencyIsNoCut(t *testing.T) {
	run := loadStored(t, "bad-i8-slow-recovery")
	run.Faults = append(run.Faults, history.Fault{ID: 9, Kind: "latency", Target: "mysql",
		Params: map[string]string{"latency": "100ms", "jitter": "20ms"}, Start: ms(1500), End: ms(5500)})
	r := Check(I8, run)
	require.Equal(t, Fail, r.Verdict, "latency slows d2 down, it does not stop it: %s", r.Reason)
	// The bound allows 4 slowed round trips: 6.1s + 4 x 120ms.
	require.Contains(t, r.Violations[0].Summary, "later than the bound of 6.58s")
}

// A short outage after the lease ran out moves the deadline out by its
// length; it does not excuse a claim nobody recovers.
func TestShortOutageOnlyDelaysRecovery(t *testing.T) {
	build := func(takeover int) history.Run {
		b := newBuilder("lease-expiry").start(0, "d1", "d2")
		b.produce(1, "j-1", history.KindValid, 50)
		b.claim(1, "d1", 100).proc("d1", "kill", 200) // lease runs out at 2100
		b.fault("down", "mysql", 2000, 2300)
		if takeover > 0 {
			b.takeover(1, "d2", takeover).add("ai-default", "j-1", "j-1", takeover+50).publish(1, takeover+100)
		}
		return b.finish(2400, 12000, true)
	}
	// Due by the outage's end, widened by ClockSlack, plus the generous
	// bound of 6.1s: 8650.
	r := Check(I8, build(8500))
	require.Equal(t, Pass, r.Verdict, r.Reason)
	require.Equal(t, "1 expired claim of a dead owner; 1 was taken over in time", r.Reason)

	r = Check(I8, build(8800))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "taken over only at 10:00:08.800 by d2")

	// A claim never taken over is judged by the tight bound (50ms + 1s):
	// due by 3600.
	r = Check(I8, build(0))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "was never taken over, though recovery was due by 10:00:03.600")
}

// A claim nobody could recover before the run ended is exempt, and the
// reason says so.
func TestNobodyAbleIsNotDue(t *testing.T) {
	b := newBuilder("lease-expiry").start(0, "d1", "d2")
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).proc("d1", "kill", 200).proc("d2", "kill", 1000)
	r := Check(I8, b.finish(1100, 12000, true))
	require.Equal(t, NotExercised, r.Verdict, "an exempt claim was not judged: %s", r.Reason)
	require.Contains(t, r.Reason, "1 was not due: no other instance was able to recover it")
}

// A dead owner's claim taken over the moment its lease ran out (a claimer
// that takes expired rows directly, within DBSlack of the lease end) expired
// and was recovered: I8 judged it. The owner's own finalize at the same
// moment is no recovery.
func TestPromptTakeoverIsJudged(t *testing.T) {
	build := func(kill bool) history.Run {
		b := newBuilder("lease-expiry").start(0, "d1", "d2")
		b.produce(1, "j-1", history.KindValid, 50)
		b.claim(1, "d1", 100) // lease runs out at 2100
		if !kill {
			b.add("ai-default", "j-1", "j-1", 2090).publish(1, 2104)
			return b.finish(2200, 12000, true)
		}
		b.proc("d1", "kill", 200)
		b.takeover(1, "d2", 2104).add("ai-default", "j-1", "j-1", 2150).publish(1, 2200)
		return b.finish(2300, 12000, true)
	}
	r := Check(I8, build(true))
	require.Equal(t, Pass, r.Verdict, r.Reason)
	require.Equal(t, "1 expired claim of a dead owner; 1 was taken over in time", r.Reason)
	require.Equal(t, 1, r.Takeover.Count, "the takeover delay is measured")

	r = Check(I8, build(false))
	require.Equal(t, NotExercised, r.Verdict, r.Reason)
	require.Equal(t, "no dead owner's claim expired", r.Reason)
}
