package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// cursorRun: a cursor relay (no claims, no jobs table) passes id 2 at ms 300
// while event 2's transaction, held open, sends its COMMIT only at ms 900:
// event 2 is never published. The drain is short: a skipped id is proven
// lost by the cursor, not by the drain's length.
func cursorRun(skip bool) history.Run {
	b := newBuilder("commit-order-gaps").start(0, "d1")
	b.run.Meta.Model = history.Model{Form: history.FormCursor, Lacks: []string{history.LackAttempts, history.LackBackoff,
		history.LackClaims, history.LackFailed, history.LackJobs, history.LackLeases, history.LackPoison}}
	b.produce(1, "job-1", history.KindValid, 100).produce(2, "job-2", history.KindValid, 900).produce(3, "job-3", history.KindValid, 150)
	b.add("ai-default", "job-1", "job-1", 200).add("ai-default", "job-3", "job-3", 250)
	b.publishOnly(1, 300).publishOnly(3, 300)
	if !skip {
		b.add("ai-default", "job-2", "job-2", 950).publishOnly(2, 1000)
	}
	for i, e := range b.run.Events {
		if e.ID == 2 {
			b.run.Events[i].Committing = ms(900)
		}
	}
	b.run.Transitions = append(b.run.Transitions, history.Transition{Seq: 9999, Table: history.TableCursor, Key: "relay",
		Op: "update", At: ms(300), Offset: 3, Writer: "d1"})
	return b.finish(1100, 1400, true)
}

func TestACursorThatPassedAnUncommittedIDFailsI2(t *testing.T) {
	r := Check(I2, cursorRun(true))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Equal(t, int64(2), r.Violations[0].EventID)
	require.Contains(t, r.Violations[0].Summary, "the cursor passed its id at")
	require.Contains(t, r.Violations[0].Summary, "before the event's transaction had committed")

	r = Check(I2, cursorRun(false))
	require.Equal(t, Pass, r.Verdict, "a cursor that waited for the gap: %s", r.Reason)
}

// For a relay without claims, a held event is a gap when a higher id had
// committed well before its COMMIT: a relay reading in id order could pass
// it, whether this one did or waited.
func TestCommitGapsLandForARelayWithoutClaims(t *testing.T) {
	req := history.Requirement{Fault: history.LandCommitGap, AtLeast: 1}
	require.Equal(t, 1, require1(t, cursorRun(false), req).Landed, "event 3 committed at 150, event 2's COMMIT at 900")
	require.Equal(t, 1, require1(t, cursorRun(true), req).Landed)
}

// For a relay without claims, an event committed before a restart of the
// store and published only after it waited through it (the producer
// commits nothing while the store is down, so no event is produced
// inside); one published before the restart, or produced after it, did
// not. An outbox with claims keeps its own rule.
func TestOutageStallsLandForARelayWithoutClaims(t *testing.T) {
	run := func(claims bool) history.Run {
		b := newBuilder("mysql-restart").start(0, "d1")
		if !claims {
			b.run.Meta.Model = history.Model{Form: history.FormCursor, Lacks: []string{history.LackAttempts, history.LackBackoff,
				history.LackClaims, history.LackFailed, history.LackJobs, history.LackLeases, history.LackPoison}}
		}
		b.fault("server-restart", "postgres", 1000, 2000)
		b.produce(1, "job-1", history.KindValid, 900).produce(2, "job-2", history.KindValid, 950).produce(3, "job-3", history.KindValid, 2500)
		b.add("ai-default", "job-1", "job-1", 920).publishOnly(1, 950)   // before it
		b.add("ai-default", "job-2", "job-2", 2100).publishOnly(2, 2150) // waited across it
		b.add("ai-default", "job-3", "job-3", 2550).publishOnly(3, 2600) // after it
		return b.finish(3000, 3500, true)
	}
	req := history.Requirement{Fault: history.LandOutageStalled, Target: "mysql", AtLeast: 1}
	require.Equal(t, 1, require1(t, run(false), req).Landed)
	require.Zero(t, require1(t, run(true), req).Landed, "with claims, an event nobody claimed before the outage was not held up by it")
}

func cursorModel() history.Model {
	return history.Model{Form: history.FormCursor, Lacks: []string{history.LackAttempts, history.LackBackoff,
		history.LackClaims, history.LackFailed, history.LackJobs, history.LackLeases, history.LackPoison}}
}

// cutRun: a cursor relay's d1 publishes events 1 and 2 and is killed
// before its offset moves; d2, killed just after, cut nothing more (no
// publish of its own came between); d1r1 publishes both again and is
// killed before its ack too: a second cut; the next round publishes them
// once more and moves the offset. Event 3 is published and passed before
// d3's kill; event 4's add shows before d2r1's kill, and the offset passes
// it after without a re-publish: the round that published it was another
// instance's, and it went on.
func cutRun(republish bool) history.Run {
	b := newBuilder("crash-window").start(0, "d1", "d2", "d3")
	b.run.Meta.Model = cursorModel()
	b.produce(1, "job-1", history.KindValid, 100).produce(2, "job-2", history.KindValid, 100)
	b.produce(3, "job-3", history.KindValid, 100).produce(4, "job-4", history.KindValid, 100)
	b.add("ai-default", "job-1", "job-1", 200).add("ai-default", "job-2", "job-2", 200)
	b.proc("d1", "kill", 210).proc("d2", "kill", 220)
	b.start(300, "d1r1", "d2r1")
	if republish {
		b.add("ai-default", "job-1", "job-1", 400).add("ai-default", "job-2", "job-2", 400)
		b.proc("d1r1", "kill", 420)
		b.add("ai-default", "job-1", "job-1", 500).add("ai-default", "job-2", "job-2", 500)
	}
	b.publishOnly(1, 550).publishOnly(2, 550)
	b.add("ai-default", "job-3", "job-3", 600).publishOnly(3, 620).proc("d3", "kill", 650)
	b.add("ai-default", "job-4", "job-4", 700).proc("d2r1", "kill", 710).publishOnly(4, 720)
	return b.finish(1000, 1400, true)
}

// Without claims, a kill lands in the publish->ack window when a message
// published before it, not yet passed by the cursor, was published again
// after it; a publish counts for one kill, and a batch published again and
// cut again counts again.
func TestCrashWindowLandsForACursorOnlyWhereAKillCutAPublish(t *testing.T) {
	req := history.Requirement{Fault: history.LandCrashWindow, AtLeast: 2, Planned: 5}
	l := require1(t, cutRun(true), req)
	require.Equal(t, 2, l.Landed, l.Reason)
	require.True(t, l.Met)
	require.Zero(t, require1(t, cutRun(false), req).Landed, "nothing published again: no round was cut")
}
