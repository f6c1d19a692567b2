package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// gapRun: event 1's transaction is held and sends its COMMIT at ms 900,
// after event 2 (a higher id) was claimed at 200; event 3's held COMMIT at
// 300 is within ClockSlack of event 4's claim at 250, so it proves nothing;
// event 5 is held but no higher id was ever claimed before it.
func gapRun() history.Run {
	b := newBuilder("commit-order-gaps").start(0, "d1")
	b.produce(1, "job-1", history.KindValid, 900).produce(2, "job-2", history.KindValid, 100)
	b.produce(3, "job-3", history.KindValid, 300).produce(4, "job-4", history.KindValid, 200)
	b.produce(5, "job-5", history.KindValid, 1000)
	held := map[int64]int{1: 900, 3: 300, 5: 1000}
	for i, e := range b.run.Events {
		if at, ok := held[e.ID]; ok {
			b.run.Events[i].Committing = ms(at)
			b.run.Events[i].Held = history.Duration(ms(at).Sub(ms(0)))
		}
	}
	for i, tr := range b.run.Transitions {
		if id, _ := tr.EventID(); held[id] > 0 && tr.Op == "insert" {
			b.run.Transitions[i].At = ms(50) // a held event's INSERT ran long before its COMMIT
		}
	}
	b.claim(2, "d1", 200).claim(4, "d1", 250).claim(1, "d1", 950).claim(3, "d1", 950).claim(5, "d1", 1100)
	return b.finish(2000, 3000, true)
}

func TestLandingCountsOnlyCommitsBehindAClaimedHigherID(t *testing.T) {
	l := require1(t, gapRun(), history.Requirement{Fault: history.LandCommitGap, AtLeast: 1})
	require.Equal(t, 1, l.Landed)
	require.True(t, l.Met)
	require.Equal(t, "1 event committed after a higher id was claimed; 1 needed", l.Reason)

	l = require1(t, gapRun(), history.Requirement{Fault: history.LandCommitGap, AtLeast: 2})
	require.False(t, l.Met)
}

func TestLandingCountsSQLErrorAnswersOnly(t *testing.T) {
	b := newBuilder("lock-conflicts").start(0, "d1")
	b.fault("sql-error", "mysql/d1", 0, 100)
	withParams(b, map[string]string{"refused": "9", "answered": "8"})
	b.fault("queue-error", "redis", 0, 100)
	withParams(b, map[string]string{"queue": "ai-bulk", "refused": "4", "answered": "4"})
	run := b.finish(200, 300, true)
	l := require1(t, run, history.Requirement{Fault: history.LandSQLError, AtLeast: 5})
	require.Equal(t, 8, l.Landed, "only the ERR packets sent count, and only the sql-error fault's")
	require.True(t, l.Met)
	require.Equal(t, "8 statements answered with a deadlock or lock wait timeout; 5 needed", l.Reason)
}

// Two instances: a held event counts only when each instance running at
// its COMMIT had taken a higher id since its insert. An instance that has
// taken nothing since still reads from an old mark, and picks it up.
func TestLandingNeedsEveryRunningInstancePastTheGap(t *testing.T) {
	build := func(d2Claims bool) history.Run {
		b := newBuilder("commit-order-gaps").start(0, "d1", "d2")
		b.produce(1, "job-1", history.KindValid, 900).produce(2, "job-2", history.KindValid, 100).produce(3, "job-3", history.KindValid, 120)
		b.run.Events[0].Committing = ms(900)
		b.claim(2, "d1", 200)
		if d2Claims {
			b.claim(3, "d2", 300)
		}
		b.claim(1, "d1", 950)
		run := b.finish(2000, 3000, true)
		for i, tr := range run.Transitions {
			if id, _ := tr.EventID(); id == 1 && tr.Op == "insert" {
				run.Transitions[i].At = ms(50)
			}
		}
		return run
	}
	req := history.Requirement{Fault: history.LandCommitGap, AtLeast: 1}
	require.Equal(t, 0, require1(t, build(false), req).Landed, "d2 took nothing past event 1 before its commit")
	require.Equal(t, 1, require1(t, build(true), req).Landed)
}
