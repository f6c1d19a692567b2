package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// dialect is a builder for a dispatcher this project did not write: it
// declares no conventions.
func dialect(scenario string) *builder {
	b := newBuilder(scenario)
	b.run.Meta.Adapter = "dialect"
	b.run.Meta.Conventions = history.Conventions{}
	return b
}

// movesOf is event id's moves.
func movesOf(run history.Run, id int64) []move { return newIndex(run).moves[id] }

// recoveredWithReason: d1 dies holding a valid and a poison event; d2
// recovers both after the lease with a reason, available_at left alone,
// then finishes them. tail adds what happens after d2's claim of event 1.
func recoveredWithReason(tail func(b *builder)) *builder {
	b := dialect("lease-expiry").start(0, "d1", "d2")
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindUnknownType, 50)
	b.claim(1, "d1", 100).claim(2, "d1", 100).proc("d1", "kill", 200).fault("kill", "d1", 200, 200)
	b.giveBack(1, 2300, "lease expired, owner d1", 0).giveBack(2, 2300, "lease expired, owner d1", 0)
	b.claim(2, "d2", 2350).failPermanent(2, 2360, "unknown event type ai.job.frobnicate")
	b.claim(1, "d2", 2350)
	tail(b)
	return b
}

func TestRecoveryWithAReasonIsARecovery(t *testing.T) {
	run := recoveredWithReason(func(b *builder) {
		b.add("ai-default", "j-1", "j-1", 2370).publish(1, 2380).take("ai-default", "j-1", "w1", 2400, false)
	}).finish(2500, 12000, true)
	require.Equal(t, "PPPPPNNPP", verdicts(run), describe(Evaluate(run)))
	require.Equal(t, moveRecovery, movesOf(run, 1)[2])
	require.Equal(t, moveRecovery, movesOf(run, 2)[2])
}

// The same dialect with no backoff after a Redis error: unknown without a
// declaration (a release cannot be ruled out), a fail once the adapter
// declares what its recoveries and releases look like, and a fail either way
// when the backoff is proven too short.
func TestNoBackoffInTheReasonDialect(t *testing.T) {
	build := func(delay time.Duration) history.Run {
		return recoveredWithReason(func(b *builder) {
			b.fault("blackhole", "redis", 2340, 2500)
			b.giveBack(1, 2400, "redis: i/o timeout", delay).claim(1, "d2", 2420)
			b.add("ai-default", "j-1", "j-1", 2600).publish(1, 2610)
		}).finish(2700, 12000, true)
	}
	run := build(0)
	r := Check(I6, run)
	require.Equal(t, Unknown, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "event 1: d2 returned it to pending at 10:00:02.400 before its lease ended, with no backoff, while fault")
	require.Contains(t, r.Reason, "a release or a retry without backoff")

	run.Meta.Conventions = history.Conventions{RecoveryErrors: []string{"lease expired"}, ReleaseErrors: []string{"released:"}}
	r = Check(I6, run)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "After transient failure 1 of event 1")
	require.Contains(t, r.Violations[0].Summary, "docs/contract.md §2 step 5")

	// Proven: available_at moved out by 100ms, half the backoff is 250ms.
	// A declaration that would call it a release does not make it pass.
	run = build(100 * time.Millisecond)
	require.Equal(t, Fail, Check(I6, run).Verdict)
	run.Meta.Conventions = history.Conventions{ReleaseErrors: []string{"redis:"}}
	require.Equal(t, Fail, Check(I6, run).Verdict)
}

// The owner's own next round recovers its expired claim, with a reason.
func TestOwnerRoundRecovery(t *testing.T) {
	b := dialect("redis-latency").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindMissingJob, 50)
	b.fault("latency", "redis", 90, 2000)
	b.claim(1, "d1", 100).claim(2, "d1", 100)
	b.giveBack(1, 2150, "lease expired, owner d1", 0).giveBack(2, 2150, "lease expired, owner d1", 0)
	b.claim(1, "d1", 2200).add("ai-default", "j-1", "j-1", 2250).publish(1, 2260)
	b.claim(2, "d1", 2200).failPermanent(2, 2210, "job j-2 not found")
	run := b.finish(2300, 12000, true)
	require.Equal(t, "PPPPPNNNP", verdicts(run), describe(Evaluate(run)))
	require.Equal(t, moveRecovery, movesOf(run, 1)[2])
}

// releasedOnTerm: d1 holds event 1 under a Redis latency fault; with term it
// was asked to stop first.
func releasedOnTerm(term bool) history.Run {
	b := dialect("graceful-shutdown").start(0, "d1", "d2")
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindIllegalJobID, 50)
	b.fault("latency", "redis", 50, 3000)
	b.claim(1, "d1", 100).claim(2, "d1", 100)
	if term {
		b.proc("d1", "term", 500)
	}
	b.giveBack(1, 520, "released: shutting down", 0).giveBack(2, 520, "released: shutting down", 0).proc("d1", "exit", 530)
	b.claim(1, "d2", 600).add("ai-default", "j-1", "j-1", 650).publish(1, 660)
	b.claim(2, "d2", 600).failPermanent(2, 610, "illegal jobId")
	return b.finish(3100, 15000, true)
}

func TestReleaseWithAReasonAfterSIGTERM(t *testing.T) {
	run := releasedOnTerm(true)
	require.Equal(t, "PPPPPNNNP", verdicts(run), describe(Evaluate(run)))
	require.Equal(t, moveRelease, movesOf(run, 1)[2])

	// Without the SIGTERM, under the fault, the history cannot tell.
	run = releasedOnTerm(false)
	require.Equal(t, "PPPUPUNNP", verdicts(run), describe(Evaluate(run)))
	require.Equal(t, moveUnclear, movesOf(run, 1)[2])
	// A declared release prefix settles it.
	run.Meta.Conventions.ReleaseErrors = []string{"released:"}
	require.Equal(t, "PPPPPNNNP", verdicts(run), describe(Evaluate(run)))
}

// "released: lease nearly over" with nothing failing for the owner is a
// release, whatever it says.
func TestReleaseWithNothingFailing(t *testing.T) {
	b := dialect("baseline").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).giveBack(1, 1900, "released: lease nearly over", 0)
	b.claim(1, "d1", 1950).add("ai-default", "j-1", "j-1", 2000).publish(1, 2010)
	run := b.finish(2100, 12000, true)
	require.Equal(t, "PPPNPNNNP", verdicts(run), describe(Evaluate(run)))
	require.Equal(t, moveRelease, movesOf(run, 1)[2])
}

// failing fails event 1 transiently n times with the expected backoff, then
// claims it once more and either publishes it or, when fail, fails it.
func failing(atFailure bool, limit, n int, fail bool) history.Run {
	b := dialect("redis-outage").start(0, "d1")
	b.attemptsAtFailure = atFailure
	b.run.Meta.Tuning.MaxAttempts = limit
	b.produce(1, "j-1", history.KindValid, 50)
	b.fault("down", "redis", 90, 30000)
	at := 100
	for i := 1; i <= n; i++ {
		backoff := expectedBackoff(b.run.Meta.Tuning, i)
		b.claim(1, "d1", at).failTransient(1, at+10, errRedis, backoff)
		at += 10 + int(backoff/time.Millisecond) + 50
	}
	b.claim(1, "d1", at)
	if fail {
		b.failPermanent(1, at+10, "max attempts: "+errRedis)
	} else {
		b.add("ai-default", "j-1", "j-1", at+20).publish(1, at+30)
	}
	return b.finish(at+100, at+15000, true)
}

func TestAttemptsCountedAtFailure(t *testing.T) {
	for _, atFailure := range []bool{false, true} {
		run := failing(atFailure, 3, 2, true)
		for _, c := range []ID{I6, I7} {
			r := Check(c, run)
			require.Equal(t, Pass, r.Verdict, "at failure %v: %s", atFailure, r.Reason)
		}
		r := Check(I7, failing(atFailure, 3, 3, false))
		require.Equal(t, Fail, r.Verdict, "at failure %v: %s", atFailure, r.Reason)
		require.Contains(t, r.Violations[0].Summary, "after 3 transient failures")
		// I6's exponent counts failures: the third backoff is 2s either way.
		require.Equal(t, Pass, Check(I6, failing(atFailure, 5, 3, false)).Verdict)
	}
}

// noToken: a schema without lock_token, fenced by locked_by and
// locked_until. d1 dies holding event 1; d2 takes it over at takeover (0:
// never).
func noToken(takeover int) history.Run {
	b := dialect("lease-expiry").start(0, "d1", "d2")
	b.noTokens = true
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).proc("d1", "kill", 200)
	if takeover > 0 {
		b.takeover(1, "d2", takeover).add("ai-default", "j-1", "j-1", takeover+50).publish(1, takeover+60)
	}
	return b.finish(2500, 12000, true)
}

func TestNoLockTokenColumn(t *testing.T) {
	run := noToken(2300)
	require.Equal(t, "PPPNPNNPP", verdicts(run), describe(Evaluate(run)))
	require.Equal(t, []move{moveInsert, moveClaim, moveTakeover, moveFinalize}, movesOf(run, 1))

	r := Check(I5, noToken(600))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "Event 1 was claimed by d2 at 10:00:00.600 while d1 still held it")

	r = Check(I8, noToken(0))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "was never taken over")
	require.Contains(t, r.Violations[0].Summary, "docs/contract.md §2 step 7")
}

// I3 is judged when the event becomes published: a consumer that moves the
// job created -> running later does not hide a dispatcher that never sets
// queued; a worker that got there first, or the same transaction writing
// the job after the event, is fine.
func TestPublishedJudgedAtTheMoment(t *testing.T) {
	build := func(f func(b *builder)) history.Run {
		b := dialect("baseline").start(0, "d1")
		b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150)
		f(b)
		return b.finish(500, 12000, true)
	}
	never := build(func(b *builder) {
		b.publishOnly(1, 200).take("ai-default", "j-1", "w1", 300, false).jobMove("j-1", history.JobRunning, 300)
	})
	r := Check(I3, never)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "Event 1 was marked published by d1 at 10:00:00.200 while its job j-1 was still created (it went created -> running only at 10:00:00.300)")
	require.Contains(t, r.Violations[0].Summary, "docs/contract.md §2 step 4")

	workerFirst := build(func(b *builder) {
		b.take("ai-default", "j-1", "w1", 180, false).jobMove("j-1", history.JobRunning, 180).publishOnly(1, 200)
	})
	require.Equal(t, Pass, Check(I3, workerFirst).Verdict)
	sameTx := build(func(b *builder) { b.publishOnly(1, 200).jobMove("j-1", history.JobQueued, 200) })
	require.Equal(t, Pass, Check(I3, sameTx).Verdict)
	// The same transaction's job update may wait on a lock.
	later := build(func(b *builder) { b.publishOnly(1, 200).jobMove("j-1", history.JobQueued, 400) })
	require.Equal(t, Pass, Check(I3, later).Verdict)

	// A dispatcher that does move jobs to queued (event 2) lost the race on
	// event 1: the consumer took it by the publish and moved it on right
	// after, so the guarded move found nothing to do.
	race := func(take int) history.Run {
		b := dialect("baseline").start(0, "d1")
		b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
		b.claim(1, "d1", 100).claim(2, "d1", 100).add("ai-default", "j-1", "j-1", 150).add("ai-default", "j-2", "j-2", 150)
		b.take("ai-default", "j-1", "w1", take, false)
		b.publishOnly(1, 200).publish(2, 200).jobMove("j-1", history.JobRunning, 220)
		return b.finish(500, 12000, true)
	}
	require.Equal(t, Pass, Check(I3, race(201)).Verdict)
	r = Check(I3, race(600))
	require.Equal(t, Fail, r.Verdict, "moved on before any worker took it: no race")
	require.Contains(t, r.Violations[0].Summary, "still created (it went created -> running only at 10:00:00.220)")
}

func TestTakeoverDistribution(t *testing.T) {
	b := newBuilder("lease-expiry").start(0, "d1", "d2")
	delays := []int{100, 200, 900}
	for i := range delays {
		id := int64(i + 1)
		b.produce(id, "j-"+itoa(id), history.KindValid, 50).claim(id, "d1", 100)
	}
	b.proc("d1", "kill", 200)
	for i, delay := range delays {
		id, at := int64(i+1), 2100+delay // every lease runs out at 2100
		b.takeover(id, "d2", at).add("ai-default", "j-"+itoa(id), "j-"+itoa(id), at+10).publish(id, at+20)
	}
	r := Check(I8, b.finish(3100, 15000, true))
	require.Equal(t, Pass, r.Verdict, r.Reason)
	require.Equal(t, &Distribution{Count: 3, P50: 0.2, P99: 0.9, Max: 0.9}, r.Takeover)

	require.Nil(t, Check(I8, loadStored(t, "good-clean")).Takeover, "nothing taken over, nothing measured")
}

// A 20-digit id passes BullMQ's own parseInt check; the contract's rule
// (no id of only digits, of any length) is stated in the violation.
func TestLongDigitJobIDRuleIsStated(t *testing.T) {
	const id = "29411606720000000043"
	require.False(t, legalJobID(id))
	require.False(t, legalJobID("job:9"))
	require.True(t, legalJobID("j-1"))
	b := dialect("poison").start(0, "d1")
	b.produce(43, id, history.KindIllegalJobID, 50).claim(43, "d1", 100).add("ai-default", id, id, 150).failPermanent(43, 200, "too late")
	r := Check(I4, b.finish(300, 12000, true))
	require.Equal(t, Fail, r.Verdict)
	s := r.Violations[0].Summary
	require.Contains(t, s, "BullMQ job "+id+" was created for poison event 43 (illegal-job-id)")
	require.Contains(t, s, "docs/contract.md §2 step 2: a jobId must not be all digits (of any length) and must not contain ':'")
	require.Contains(t, s, "BullMQ's own parseInt check misses a 20-digit id such as this one")
}

// available_at counts as moved out only past FutureSlack: a release writing
// the application's "now" may round a hair ahead.
func TestAvailableAtInTheFuture(t *testing.T) {
	build := func(delay time.Duration) history.Run {
		b := dialect("redis-latency").start(0, "d1")
		b.produce(1, "j-1", history.KindValid, 50).fault("latency", "redis", 60, 500)
		b.claim(1, "d1", 100).giveBack(1, 300, "redis: slow", delay)
		b.claim(1, "d1", 1000).add("ai-default", "j-1", "j-1", 1020).publish(1, 1030)
		return b.finish(1100, 12000, true)
	}
	require.Equal(t, moveUnclear, movesOf(build(3*time.Millisecond), 1)[2])
	require.Equal(t, moveFailure, movesOf(build(20*time.Millisecond), 1)[2])
	r := Check(I6, build(20*time.Millisecond))
	require.Equal(t, Fail, r.Verdict, "20ms is proven short of half the 500ms backoff: %s", r.Reason)
}

// Every move has its own name, so a message says which kind it means.
func TestMovesHaveNames(t *testing.T) {
	seen := map[string]bool{}
	for m := moveOther; m <= moveDelete; m++ {
		name := m.String()
		require.NotContains(t, name, "move(", "move %d has no name", int(m))
		require.False(t, seen[name], "two moves are named %q", name)
		seen[name] = true
	}
	require.Len(t, moveNames, int(moveDelete)+1, "moveNames lists a name no move has")
	require.Equal(t, "recovery", moveRecovery.String())
	require.Equal(t, "move(99)", move(99).String())
}

// An outbox without an owner column: a claim's owner is the instance of the
// slot that wrote it, running then (a restart's instance after a restart).
func TestClaimOwnerComesFromTheWriterWithoutLockedBy(t *testing.T) {
	run := history.Run{Processes: []history.ProcessEvent{
		{Instance: "d1", Action: "start", At: ms(0)}, {Instance: "d1", Action: "kill", At: ms(500)},
		{Instance: "d1r1", Action: "start", At: ms(600)}, {Instance: "d2", Action: "start", At: ms(0)},
	}}
	until := ms(5000)
	claim := func(at int, writer string) history.Transition {
		return history.Transition{Table: history.TableOutbox, Key: "1", Op: "update", At: ms(at), OldStatus: "pending",
			NewStatus: "processing", Writer: writer, LockedUntil: &until}
	}
	c := moveReader{run: run, lv: newLiveness(run)}
	require.Equal(t, "d1", c.owner(claim(100, "d1")))
	require.Equal(t, "d1r1", c.owner(claim(700, "d1")))
	require.Equal(t, "d2", c.owner(claim(700, "d2")))
	require.Empty(t, c.owner(claim(700, "")), "no writer recorded: nobody can be named")
	withOwner := claim(700, "d1")
	withOwner.LockedBy = "worker-7"
	require.Equal(t, "worker-7", c.owner(withOwner), "locked_by, when the outbox has it, is the owner")
}
