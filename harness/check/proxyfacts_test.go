package check

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// command records what the proxy saw of a command slot sent naming jobs
// (none: a command naming no job), and turns the run's command log on.
func (b *builder) command(slot, name, outcome string, sent, replied int, jobs ...string) *builder {
	b.run.Meta.Commands = true
	b.run.Commands = append(b.run.Commands, history.Command{Slot: slot, Name: name, Jobs: jobs, Write: true,
		Sent: ms(sent), Outcome: outcome, Replied: ms(replied)})
	return b
}

// commandsOn turns the command log on with nothing recorded.
func (b *builder) commandsOn() *builder {
	b.run.Meta.Commands = true
	return b
}

// givenBack: d1 claims events 1 and 2 under fault (kind on target), sends
// what cmds records, and gives event 1 back at 1900 with no backoff; the
// next round claims and publishes it. The dialect declares nothing.
func givenBack(kind, target string, cmds func(b *builder)) *builder {
	b := dialect("redis-latency").start(0, "d1")
	b.writers = true
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.fault(kind, target, 60, 3000)
	b.claim(1, "d1", 100).claim(2, "d1", 100)
	cmds(b)
	b.giveBack(1, 1900, "released: lease nearly over", 0).by("d1")
	b.add("ai-default", "j-2", "j-2", 200).publish(2, 210)
	b.claim(1, "d1", 1950).add("ai-default", "j-1", "j-1", 2000).publish(1, 2010)
	return b
}

func TestReturnWithNoCommandForItsJobIsARelease(t *testing.T) {
	run := givenBack("latency", "redis", func(b *builder) {
		b.command("d1", "EVALSHA", history.CommandAnswered, 190, 200, "j-2")
	}).finish(3100, 12000, true)
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
	r := Check(I6, run)
	require.NotEqual(t, Unknown, r.Verdict, r.Reason)
	require.Nil(t, Declarations(run, Evaluate(run)), "nothing left to declare")

	// The Redis faults whose effects the log records leave the link up; a
	// failed add of another job does not make this one fail.
	for _, kind := range []string{"queue-error", "redis-state", "lost-reply-redis-add"} {
		run = givenBack(kind, "redis/d1", func(b *builder) {
			b.command("d1", "EVALSHA", history.CommandError, 190, 200, "j-2")
		}).finish(3100, 12000, true)
		require.Equal(t, moveRelease, movesOf(run, 1)[2], kind)
	}
	// A fault on another instance's link is no trouble at all (rule 4).
	run = givenBack("down", "redis/d2", func(b *builder) { b.commandsOn() }).start(0, "d2").finish(3100, 12000, true)
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
}

func TestAbsentCommandRecordsKeepTheDoubt(t *testing.T) {
	// An older history: no records, Meta.Commands false.
	run := givenBack("latency", "redis", func(b *builder) {}).finish(3100, 12000, true)
	require.Equal(t, moveUnclear, movesOf(run, 1)[2])
	r := Check(I6, run)
	require.Equal(t, Unknown, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "while fault 1 (latency on redis) was in effect")

	// A command log with a gap proves nothing by an absence.
	b := givenBack("latency", "redis", func(b *builder) { b.commandsOn() })
	run = b.gap(history.GapCommands, 2500, "lost 3 records").finish(3100, 12000, true)
	require.Equal(t, moveUnclear, movesOf(run, 1)[2])
}

func TestReturnWithALinkDownStaysInDoubt(t *testing.T) {
	for _, f := range [][2]string{{"down", "redis"}, {"blackhole", "redis/d1"}, {"reset", "redis"}, {"sql-error", "mysql"}, {"down", "mysql/d1"}} {
		run := givenBack(f[0], f[1], func(b *builder) { b.commandsOn() }).finish(3100, 12000, true)
		require.Equal(t, moveUnclear, movesOf(run, 1)[2], "%s on %s", f[0], f[1])
		r := Check(I6, run)
		require.Equal(t, Unknown, r.Verdict, r.Reason)
	}
	// A failed command naming no job on the owner's link: it may have
	// been this event's attempt (a connection that timed out).
	run := givenBack("latency", "redis", func(b *builder) {
		b.command("d1", "SET", history.CommandClosed, 300, 1300)
	}).finish(3100, 12000, true)
	require.Equal(t, moveUnclear, movesOf(run, 1)[2])
	r := Check(I6, run)
	require.Equal(t, Unknown, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "after its SET on Redis at 10:00:00.300 not answered before its connection ended")
}

// A pause of the owner (SIGSTOP, then SIGCONT) and a COMMIT of its held
// and let go keep its links up: with no command for its job, the return
// is a release. A held COMMIT cut with its connection keeps the doubt.
func TestReturnAfterAPauseOrAHeldCommitIsARelease(t *testing.T) {
	for _, kind := range []string{"pause", "pause-trap", history.FaultFinalizeTrap} {
		run := givenBack(kind, "d1", func(b *builder) {
			b.commandsOn()
			b.proc("d1", "stop", 300).proc("d1", "cont", 1300)
		}).finish(3100, 12000, true)
		require.Equal(t, moveRelease, movesOf(run, 1)[2], kind)
		require.NotEqual(t, Unknown, Check(I6, run).Verdict, kind)
	}
	b := givenBack(history.FaultFinalizeTrap, "d1", func(b *builder) { b.commandsOn() })
	withParams(b, map[string]string{"cut": "true"})
	run := b.finish(3100, 12000, true)
	require.Equal(t, moveUnclear, movesOf(run, 1)[2], "a cut COMMIT may have failed the owner's finalize unseen")
	// A kill is no pause: the instance that comes back may have sent
	// nothing yet, or something the proxy never saw.
	run = givenBack("kill", "d1", func(b *builder) {
		b.commandsOn()
		b.proc("d1", "kill", 300)
	}).finish(3100, 12000, true)
	require.Equal(t, moveUnclear, movesOf(run, 1)[2])
}

func TestReturnAfterAFailedCommandForItsJobIsATransientFailure(t *testing.T) {
	for _, c := range []struct{ kind, outcome string }{
		{"queue-error", history.CommandError},
		{"lost-reply-redis-add", history.CommandDropped},
		{"latency", history.CommandClosed},
		{"reset", history.CommandClosed},
	} {
		run := givenBack(c.kind, "redis", func(b *builder) {
			b.command("d1", "EVALSHA", c.outcome, 1000, 1800, "j-1")
		}).finish(3100, 12000, true)
		require.Equal(t, moveFailure, movesOf(run, 1)[2], c.outcome)
		r := Check(I6, run)
		require.Equal(t, Fail, r.Verdict, "%s: %s", c.outcome, r.Reason)
		require.Contains(t, r.Violations[0].Summary, "After transient failure 1 of event 1")
		require.True(t, hasStep(r.Violations[0], "proxy", "d1 sent EVALSHA naming job j-1 to Redis"), "the step the verdict rests on")
	}
	// Declared conventions decide as they did before the log: a breaker
	// that gives back what it holds when Redis answered nothing declares
	// those give-backs (the reference does).
	run := givenBack("queue-error", "redis", func(b *builder) {
		b.command("d1", "EVALSHA", history.CommandError, 1000, 1010, "j-1")
	}).finish(3100, 12000, true)
	run.Meta.Conventions.ReleaseErrors = []string{"released:"}
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
	run.Meta.Conventions.ReleaseErrors = []string{"given back:"}
	require.Equal(t, moveFailure, movesOf(run, 1)[2])

	// A return that takes back its claim's attempt after a lost reply is
	// a give-back as the dispatcher tells it: in doubt, never a fail.
	run = givenBack("lost-reply-redis-add", "redis", func(b *builder) {
		b.command("d1", "EVALSHA", history.CommandDropped, 1000, 1800, "j-1")
	}).finish(3100, 12000, true)
	for i := range run.Transitions {
		if tr := &run.Transitions[i]; tr.Key == "1" && tr.At.Equal(ms(1900)) {
			tr.Attempts--
		}
	}
	require.Equal(t, moveUnclear, movesOf(run, 1)[2])
	r := Check(I6, run)
	require.Equal(t, Unknown, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "its claim's attempt taken back (1 to 0)")
	// The same return with backoff passes I6.
	b := dialect("queue-error").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).fault("queue-error", "redis", 60, 3000)
	b.claim(1, "d1", 100).command("d1", "EVALSHA", history.CommandError, 150, 160, "j-1")
	b.giveBack(1, 170, "redis: queue broken", 600*time.Millisecond)
	b.claim(1, "d1", 800).command("d1", "EVALSHA", history.CommandAnswered, 850, 860, "j-1")
	b.add("ai-default", "j-1", "j-1", 855).publish(1, 870)
	run = b.finish(3100, 12000, true)
	require.Equal(t, Pass, Check(I6, run).Verdict, Check(I6, run).Reason)
}

func TestReturnAfterAnAnsweredCommandStaysInDoubt(t *testing.T) {
	build := func() history.Run {
		return givenBack("latency", "redis", func(b *builder) {
			b.command("d1", "EVALSHA", history.CommandError, 900, 910, "j-1")
			b.command("d1", "EVAL", history.CommandAnswered, 1000, 1010, "j-1")
		}).finish(3100, 12000, true)
	}
	run := build()
	require.Equal(t, moveUnclear, movesOf(run, 1)[2])
	r := Check(I6, run)
	require.Equal(t, Unknown, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "d1 sent EVAL naming job j-1 to Redis at 10:00:01.000, which was answered at 10:00:01.010")
	require.Contains(t, r.Reason, "the adapter declares no release or recovery conventions")
	require.NotNil(t, Declarations(run, Evaluate(run)), "the declaration that would settle it")

	// Declared conventions settle it as before.
	run = build()
	run.Meta.Conventions.ReleaseErrors = []string{"released:"}
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
	run = build()
	run.Meta.Conventions.ReleaseErrors = []string{"given back:"}
	require.Equal(t, moveFailure, movesOf(run, 1)[2])
}

func TestFailedCommandOfAKilledOwnerIsNotItsRetry(t *testing.T) {
	// d1 sent the add and was killed before the reply; its restart d1r2
	// (same slot, same MySQL user) gives the claim back at once.
	b := dialect("kill").start(0, "d1")
	b.writers = true
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).command("d1", "EVALSHA", history.CommandClosed, 150, 200, "j-1")
	b.proc("d1", "kill", 200).fault("kill", "d1", 200, 200).proc("d1r2", "start", 300)
	b.giveBack(1, 400, "released: restarted", 0).by("d1r2")
	b.claim(1, "d1r2", 500).add("ai-default", "j-1", "j-1", 550).publish(1, 560)
	run := b.finish(3100, 12000, true)
	require.NotEqual(t, moveFailure, movesOf(run, 1)[2])
	require.NotEqual(t, Fail, Check(I6, run).Verdict)
}

// A hold's commands are those sent between the event's transitions around
// it: the next hold's add, sent within ClockSlack of this return, and the
// previous hold's failed add, within ClockSlack of this claim, are theirs.
func TestCommandsOfTheNeighbouringHoldsAreTheirs(t *testing.T) {
	run := givenBack("latency", "redis", func(b *builder) {
		b.command("d1", "EVAL", history.CommandAnswered, 1960, 1961, "j-1")
	}).finish(3100, 12000, true)
	require.Equal(t, moveRelease, movesOf(run, 1)[2], "the next hold's add")

	b := dialect("queue-error").start(0, "d1")
	b.writers = true
	b.run.Meta.Tuning.BackoffBase = history.Duration(50 * time.Millisecond)
	b.produce(1, "j-1", history.KindValid, 50).fault("queue-error", "redis", 60, 3000)
	b.claim(1, "d1", 100).command("d1", "EVALSHA", history.CommandError, 690, 695, "j-1")
	b.failTransient(1, 700, "redis: queue broken", 60*time.Millisecond).by("d1")
	b.claim(1, "d1", 770).giveBack(1, 900, "released: lease nearly over", 0).by("d1")
	b.claim(1, "d1", 1000).command("d1", "EVALSHA", history.CommandAnswered, 1010, 1020, "j-1")
	b.add("ai-default", "j-1", "j-1", 1015).publish(1, 1030)
	run = b.finish(3100, 12000, true)
	require.Equal(t, []move{moveInsert, moveClaim, moveFailure, moveClaim, moveRelease, moveClaim, moveFinalize}, movesOf(run, 1))
	require.Equal(t, Pass, Check(I6, run).Verdict, Check(I6, run).Reason)
}

// hasStep tells whether v has a step from source whose text starts with
// prefix.
func hasStep(v Violation, source, prefix string) bool {
	for _, s := range v.Steps {
		if s.Source == source && strings.HasPrefix(s.Text, prefix) {
			return true
		}
	}
	return false
}
