package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// earlyReset: d1 claims event 1 at 100 (lease until 2100) and is still
// running; at 900, long before the lease ends, its claim goes back to
// pending with its lock cleared and last_error left alone, written by
// resetter ("" for a history without writers); d2 then claims it and
// publishes it. Nothing fails for d1, so without a writer the return reads
// as d1's own release.
func earlyReset(writers bool, resetter string) history.Run {
	b := newBuilder("zombie").start(0, "d1", "d2")
	b.writers = writers
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).release(1, 900)
	if resetter != "" {
		b.by(resetter)
	}
	b.claim(1, "d2", 950).add("ai-default", "j-1", "j-1", 1000).publish(1, 1010)
	if writers {
		b.by("d2")
	}
	return b.finish(1100, 12000, true)
}

func exclusive(t *testing.T, run history.Run) Result {
	t.Helper()
	for _, r := range Evaluate(run) {
		if r.ID == "I5" {
			return r
		}
	}
	t.Fatal("no I5 result")
	return Result{}
}

func TestEarlyResetByAnotherSlotFailsExclusive(t *testing.T) {
	run := earlyReset(true, "d2")
	require.Equal(t, moveSeized, movesOf(run, 1)[2])
	r := exclusive(t, run)
	require.Equal(t, Fail, r.Verdict, describe(Evaluate(run)))
	require.Len(t, r.Violations, 1)
	require.Equal(t, "Event 1 was returned to pending at 10:00:00.900 by d2 while d1 still held it under a lease running until 10:00:02.100.",
		r.Violations[0].Summary)
	require.ElementsMatch(t, []string{"d1", "d2"}, r.Violations[0].Instances)
	// Only I5 says so: the reset is no transient failure and no release.
	require.Equal(t, "PPPNFNNNP", verdicts(run), describe(Evaluate(run)))
}

// The writer is named as the slot's instance at the time: after d2 was
// restarted, d2r1.
func TestEarlyResetNamesTheSlotsInstanceOfTheTime(t *testing.T) {
	b := newBuilder("zombie").start(0, "d1", "d2")
	b.writers = true
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).proc("d2", "kill", 200).start(300, "d2r1").release(1, 900).by("d2r1")
	run := b.finish(1100, 12000, false)
	r := exclusive(t, run)
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "at 10:00:00.900 by d2r1 while d1 still held it")
}

func TestEarlyResetByTheOwnersSlotIsItsRelease(t *testing.T) {
	run := earlyReset(true, "d1")
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
	require.Equal(t, Pass, exclusive(t, run).Verdict, describe(Evaluate(run)))
	// Exactly what the same history without writers says.
	require.Equal(t, verdicts(earlyReset(false, "")), verdicts(run))
}

func TestEarlyResetWithoutWritersIsTodaysRelease(t *testing.T) {
	run := earlyReset(false, "")
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
	require.Equal(t, "PPPNPNNNP", verdicts(run), describe(Evaluate(run)))
	// A writer on one side only proves nothing.
	run = earlyReset(false, "d2")
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
	require.Equal(t, Pass, exclusive(t, run).Verdict)
}

// A reset at or after the lease end is a recovery whoever writes it, and
// one the harness wrote is never an instance's takeover.
func TestResetAfterTheLeaseOrByTheHarnessIsNotSeized(t *testing.T) {
	b := newBuilder("lease-expiry").start(0, "d1", "d2")
	b.writers = true
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.claim(1, "d1", 100).proc("d1", "kill", 200).fault("kill", "d1", 200, 200)
	b.release(1, 2150).by("d2")
	b.claim(1, "d2", 2200).add("ai-default", "j-1", "j-1", 2250).publish(1, 2260).by("d2")
	b.claim(2, "d2", 100).release(2, 900).by(history.WriterHarness)
	b.claim(2, "d2", 950).add("ai-default", "j-2", "j-2", 1000).publish(2, 1010).by("d2")
	run := b.finish(2300, 12000, true)
	require.Equal(t, moveRecovery, movesOf(run, 1)[2])
	require.NotEqual(t, moveSeized, movesOf(run, 2)[2])
	require.Equal(t, Pass, exclusive(t, run).Verdict, describe(Evaluate(run)))
}
