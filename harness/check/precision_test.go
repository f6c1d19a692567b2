package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// wholeSecondsRun is a correct dispatcher's run on lease and backoff
// columns that keep whole seconds (base 2 s, max 8 s, lease 3 s): event 1
// fails three times with backoffs at the low end of their jitter (1 s, 2 s
// and 4 s written, each cut or rounded by the server), then is published;
// event 2's owner dies holding it, and d2 takes it over 20 ms after the
// lease end it computed. retry is the delay of event 1's third retry.
func wholeSecondsRun(round bool, retry time.Duration) history.Run {
	b := newBuilder("whole-seconds").start(0, "d1", "d2").wholeSeconds(round)
	b.run.Meta.Tuning.BackoffBase = history.Duration(2 * time.Second)
	b.run.Meta.Tuning.BackoffMax = history.Duration(8 * time.Second)
	b.run.Meta.Tuning.Lease = history.Duration(3 * time.Second)
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 60)
	b.claim(1, "d1", 700).failTransient(1, 900, errRedis, time.Second)
	b.claim(1, "d1", 1950).failTransient(1, 2000, errRedis, 2*time.Second)
	b.claim(1, "d1", 3950).failTransient(1, 4300, errRedis, retry)
	next := 4300 + int(retry/time.Millisecond) + 700
	b.claim(1, "d1", next).add("ai-default", "j-1", "j-1", next+50).publish(1, next+100)
	b.claim(2, "d1", 1600).proc("d1", "kill", 1700) // lease written to end at 4600
	b.takeover(2, "d2", 4620).add("ai-default", "j-2", "j-2", 4670).publish(2, 4720)
	return b.finish(next+200, next+30000, true)
}

// A correct dispatcher on whole-second columns passes I5, I6 and I8 with
// the precision recorded; judged as if the columns kept microseconds, the
// same history is a false alarm, which is what the step prevents.
func TestWholeSecondColumnsAllowAStep(t *testing.T) {
	for _, round := range []bool{false, true} {
		run := wholeSecondsRun(round, 4*time.Second)
		for _, id := range []ID{I5, I6, I8} {
			r := Check(id, run)
			require.Equal(t, Pass, r.Verdict, "round %v: %s: %s", round, id, r.Reason)
			require.Contains(t, r.Reason, "keeps steps of 1s on this server: each comparison with it allowed one step", id)
		}
		run.Meta.Model.Precision = nil
		failed := map[ID]bool{}
		for _, id := range []ID{I5, I6, I8} {
			failed[id] = Check(id, run).Verdict == Fail
		}
		if round {
			// Rounded up, d2's takeover at the lease end it was written
			// with falls before the end the server kept.
			require.True(t, failed[I5], "rounded: without the step the takeover looks early")
		} else {
			// Cut, the third backoff (4 s written at 4.3 s) reads back as
			// 3.7 s: less than half of 8 s less DBSlack.
			require.True(t, failed[I6], "cut: without the step the backoff looks short")
		}
	}
}

// The step does not blind I6: a fixed 1.2 s retry at the third failure,
// where half of the 8 s expected is 4 s, is still caught on whole-second
// columns.
func TestWholeSecondColumnsStillCatchAShortBackoff(t *testing.T) {
	r := Check(I6, wholeSecondsRun(false, 1200*time.Millisecond))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "less than half the expected backoff of 8s")
}

// whole-seconds counts lease ends and backoffs written into columns the
// run coarsened, only when the run did coarsen them and the server kept
// whole seconds.
func TestLandingCountsWholeSecondWrites(t *testing.T) {
	req := history.Requirement{Fault: history.LandWholeSeconds, AtLeast: 5}
	coarsened := func() history.Run {
		run := wholeSecondsRun(false, 4*time.Second)
		run.Faults = append(run.Faults, history.Fault{ID: 9, Kind: history.FaultCoarsenColumns, Target: "schema", Start: t0, End: t0})
		return run
	}
	l := require1(t, coarsened(), req)
	require.Equal(t, 9, l.Landed, "6 claims' lease ends and 3 backoffs")
	require.True(t, l.Met)
	require.Equal(t, "9 lease ends and backoffs written into a column the run had altered to whole seconds; 5 needed", l.Reason)
	require.Zero(t, require1(t, wholeSecondsRun(false, 4*time.Second), req).Landed, "no coarsening, no landing")
	run := coarsened()
	run.Meta.Model.Precision = map[string]int{history.ColumnLockedUntil: 3}
	require.Zero(t, require1(t, run, req).Landed, "a column that kept milliseconds is not whole seconds")
}

func TestGranularity(t *testing.T) {
	m := history.Model{Precision: map[string]int{history.ColumnLockedUntil: 0, history.ColumnAvailableAt: 3}}
	require.Equal(t, time.Second, m.Granularity(history.ColumnLockedUntil))
	require.Equal(t, time.Millisecond, m.Granularity(history.ColumnAvailableAt))
	require.Zero(t, history.Model{}.Granularity(history.ColumnLockedUntil), "not recorded: microseconds")
}
