package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// statement records a statement slot sent on its MySQL link that failed
// (outcome), a write unless name is SELECT.
func (b *builder) statement(slot, name, outcome string, sent, replied int) *builder {
	b.run.Meta.Commands = true
	b.run.Commands = append(b.run.Commands, history.Command{Slot: slot, Store: "mysql", Name: name, Write: name != "SELECT",
		Sent: ms(sent), Outcome: outcome, Reply: "1213 Deadlock found when trying to get lock", Replied: ms(replied)})
	return b
}

// finalizeFailed: under a MySQL fault, d1's add of event 1 reaches Redis
// and is answered, then stmts records what failed on its MySQL link, and
// d1 returns event 1 to pending at 1900 with no backoff.
func finalizeFailed(stmts func(b *builder)) history.Run {
	return givenBack("sql-error", "mysql", func(b *builder) {
		b.command("d1", "EVALSHA", history.CommandAnswered, 1000, 1010, "j-1")
		stmts(b)
	}).finish(3100, 12000, true)
}

func TestReturnAfterAFailedFinalizeIsATransientFailure(t *testing.T) {
	for _, outcome := range []string{history.CommandError, history.CommandDropped, history.CommandClosed} {
		run := finalizeFailed(func(b *builder) { b.statement("d1", "UPDATE", outcome, 1020, 1030) })
		require.Equal(t, moveFailure, movesOf(run, 1)[2], outcome)
		r := Check(I6, run)
		require.Equal(t, Fail, r.Verdict, "%s: %s", outcome, r.Reason)
		require.Contains(t, r.Violations[0].Summary, "After transient failure 1 of event 1")
		require.True(t, hasStep(r.Violations[0], "proxy", "d1's UPDATE on mysql failed"), "the step the verdict rests on")
	}
	// A declaration decides as before the log.
	run := finalizeFailed(func(b *builder) { b.statement("d1", "COMMIT", history.CommandError, 1020, 1030) })
	run.Meta.Conventions.ReleaseErrors = []string{"released:"}
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
}

func TestReturnWithNoFailedFinalizeIsUnchanged(t *testing.T) {
	none := finalizeFailed(func(b *builder) {})
	require.Equal(t, moveUnclear, movesOf(none, 1)[2], "the add was answered and nothing failed: in doubt")
	for name, run := range map[string]history.Run{
		"a failed read":                   finalizeFailed(func(b *builder) { b.statement("d1", "SELECT", history.CommandError, 1020, 1030) }),
		"another instance's write":        finalizeFailed(func(b *builder) { b.statement("d2", "UPDATE", history.CommandError, 1020, 1030) }),
		"a write before the add":          finalizeFailed(func(b *builder) { b.statement("d1", "UPDATE", history.CommandError, 900, 910) }),
		"a write failed after the return": finalizeFailed(func(b *builder) { b.statement("d1", "UPDATE", history.CommandClosed, 1020, 2500) }),
	} {
		require.Equal(t, moveUnclear, movesOf(run, 1)[2], name)
		r := Check(I6, run)
		require.Equal(t, Unknown, r.Verdict, "%s: %s", name, r.Reason)
		require.Equal(t, Check(I6, none).Reason, r.Reason, name)
	}
	// A release stays a release: no command named the job, and the owner's
	// failed write (another event's finalize) does not make it fail.
	run := givenBack("latency", "redis", func(b *builder) {
		b.command("d1", "EVALSHA", history.CommandAnswered, 190, 200, "j-2")
		b.statement("d1", "UPDATE", history.CommandError, 210, 220)
	}).finish(3100, 12000, true)
	require.Equal(t, moveRelease, movesOf(run, 1)[2])

	// An older history (no records, Meta.Commands false) reads as before.
	old := givenBack("sql-error", "mysql", func(b *builder) {}).finish(3100, 12000, true)
	require.Equal(t, moveUnclear, movesOf(old, 1)[2])
	require.Contains(t, Check(I6, old).Reason, "while fault 1 (sql-error on mysql) was in effect")
}

func TestFailedFinalizeIsNamedWhenTheReturnStaysInDoubt(t *testing.T) {
	run := finalizeFailed(func(b *builder) { b.statement("d1", "UPDATE", history.CommandError, 1020, 1030) })
	for i := range run.Transitions {
		if tr := &run.Transitions[i]; tr.Key == "1" && tr.At.Equal(ms(1900)) {
			tr.Attempts--
		}
	}
	require.Equal(t, moveUnclear, movesOf(run, 1)[2])
	r := Check(I6, run)
	require.Equal(t, Unknown, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, `then its UPDATE on mysql at 10:00:01.020 failed (the error "1213 Deadlock found when trying to get lock")`)
}
