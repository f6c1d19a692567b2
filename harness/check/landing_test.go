package check

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

func withParams(b *builder, params map[string]string) *builder {
	b.run.Faults[len(b.run.Faults)-1].Params = params
	return b
}

func require1(t *testing.T, run history.Run, req history.Requirement) Landing {
	t.Helper()
	run.Meta.Landing = []history.Requirement{req}
	ls := CheckLanding(run)
	require.Len(t, ls, 1)
	return ls[0]
}

// crashRun: d1 is killed inside the window of event 1 (job added, not
// finalized); d2 is killed holding event 2 before its add; d3 is killed
// after it finalized event 3; d4 is stopped gracefully holding event 4.
func crashRun() history.Run {
	b := newBuilder("crash-window").start(0, "d1", "d2", "d3", "d4")
	b.produce(1, "job-1", history.KindValid, 10).produce(2, "job-2", history.KindValid, 10)
	b.produce(3, "job-3", history.KindValid, 10).produce(4, "job-4", history.KindValid, 10)
	b.claim(1, "d1", 100).add("ai-default", "job-1", "job-1", 150).proc("d1", "kill", 200).proc("d1", "exit", 210)
	b.claim(2, "d2", 100).proc("d2", "kill", 200).add("ai-default", "job-2", "job-2", 250)
	b.claim(3, "d3", 100).add("ai-default", "job-3", "job-3", 150).publish(3, 180).proc("d3", "kill", 200)
	b.claim(4, "d4", 100).add("ai-default", "job-4", "job-4", 150).proc("d4", "term", 200).proc("d4", "exit", 220)
	b.start(3000, "d5").takeover(1, "d5", 3000).publish(1, 3050).takeover(2, "d5", 3000).publish(2, 3050)
	b.takeover(4, "d5", 3000).publish(4, 3050)
	// The harness's own stop after the heal is not a fault.
	b.claim(4, "d5", 3060).proc("d5", "kill", 5000)
	return b.finish(4000, 6000, true)
}

func TestLandingCountsOnlyKillsInsideTheAddFinalizeWindow(t *testing.T) {
	l := require1(t, crashRun(), history.Requirement{Fault: history.LandCrashWindow, AtLeast: 2, Planned: 4})
	require.Equal(t, 1, l.Landed)
	require.False(t, l.Met)
	require.Equal(t, "1 of 4 planned kills fell inside an add->finalize window; 2 needed", l.Reason)

	l = require1(t, crashRun(), history.Requirement{Fault: history.LandCrashWindow, AtLeast: 1})
	require.True(t, l.Met)
	require.Equal(t, "1 kill fell inside an add->finalize window; 1 needed", l.Reason)
}

func TestLandingDeadOwnersClaims(t *testing.T) {
	// d1 and d2 died holding claims that ran out; d3's had been closed.
	l := require1(t, crashRun(), history.Requirement{Fault: history.LandDeadOwner, AtLeast: 2})
	require.Equal(t, 2, l.Landed)
	require.True(t, l.Met)
}

func TestLandingZombiePauses(t *testing.T) {
	b := newBuilder("zombie").start(0, "d1", "d2")
	b.produce(1, "job-1", history.KindValid, 10).produce(2, "job-2", history.KindValid, 10)
	// d1 stops after its add; its lease (2 s) runs out during the pause.
	b.claim(1, "d1", 100).add("ai-default", "job-1", "job-1", 150).proc("d1", "stop", 200)
	b.takeover(1, "d2", 2300).publish(1, 2350).proc("d1", "cont", 5000)
	// d2 stops with nothing in flight: no landing.
	b.claim(2, "d2", 2400).add("ai-default", "job-2", "job-2", 2450).publish(2, 2500).proc("d2", "stop", 2600).proc("d2", "cont", 5000)
	run := b.finish(5100, 6000, true)
	l := require1(t, run, history.Requirement{Fault: history.LandZombie, AtLeast: 2, Planned: 2})
	require.Equal(t, 1, l.Landed)
	require.Equal(t, "1 of 2 planned pauses held a claim past its lease with the add done and the finalize not written; 2 needed", l.Reason)
}

func TestLandingFinalizeHeldAcrossTheLeaseEnd(t *testing.T) {
	b := newBuilder("zombie").start(0, "d1", "d2", "d3")
	for id := int64(1); id <= 3; id++ {
		b.produce(id, fmt.Sprintf("job-%d", id), history.KindValid, 10)
	}
	// d1's finalize ran at 400 while its COMMIT was held until 3500; its
	// lease (2 s from 100) ran out at 2100, inside the hold: landed.
	b.claim(1, "d1", 100).add("ai-default", "job-1", "job-1", 150).fault("finalize-trap", "d1", 200, 3500).publish(1, 400)
	// d2's hold ended before its lease did: its finalize committed in time.
	b.claim(2, "d2", 100).add("ai-default", "job-2", "job-2", 150).fault("finalize-trap", "d2", 200, 1500).publish(2, 400)
	// d3's finalize came after its lease had run out: a late write, not a
	// held one.
	b.claim(3, "d3", 100).add("ai-default", "job-3", "job-3", 150).fault("finalize-trap", "d3", 200, 3500).publish(3, 2300)
	run := b.finish(4000, 6000, true)
	l := require1(t, run, history.Requirement{Fault: history.LandFinalizeHeld, AtLeast: 2})
	require.Equal(t, 1, l.Landed)
	require.False(t, l.Met)
	require.Equal(t, "1 finalize held open (its COMMIT held back) well past its lease end, or ended by its database before it; 2 needed", l.Reason)
}

// A hold released too soon after the lease end (by less than a poll
// interval and a quarter lease) gave a recovery no chance to meet the open
// finalize: not landed.
func TestLandingFinalizeHeldNeedsToOutlastTheLeaseEnd(t *testing.T) {
	held := func(release int) history.Run {
		b := newBuilder("zombie").start(0, "d1", "d2")
		b.produce(1, "job-1", history.KindValid, 10)
		b.claim(1, "d1", 100).add("ai-default", "job-1", "job-1", 150).fault("finalize-trap", "d1", 200, release).publish(1, 400)
		return b.finish(5000, 6000, true)
	}
	req := history.Requirement{Fault: history.LandFinalizeHeld, AtLeast: 1}
	// The lease ends at 2100; a poll and a quarter lease are 550 ms.
	require.True(t, require1(t, held(2700), req).Met)
	require.False(t, require1(t, held(2500), req).Met)
	require.Equal(t, "0 finalizes held open (its COMMIT held back) well past its lease end, or ended by its database before it; 1 needed", require1(t, held(2500), req).Reason)
}

// A hold the connection's end cut short (cut = "true": the server ended
// the session, so the held COMMIT never ran and the finalize was rolled
// back) before the claim's lease end counts: nothing was left open for a
// recovery to meet, and no longer hold could have left anything. A hold
// that ran its time before the lease end does not, nor a cut hold of a
// claim its owner had already finalized.
func TestLandingFinalizeHeldCutByTheDatabase(t *testing.T) {
	held := func(cut bool, finalized int) history.Run { return cutAt(cut, finalized, 1700) }
	req := history.Requirement{Fault: history.LandFinalizeHeld, AtLeast: 1}
	require.True(t, require1(t, held(true, 0), req).Met)
	require.False(t, require1(t, held(false, 0), req).Met, "released in time by the hold itself")
	require.False(t, require1(t, held(true, 400), req).Met, "the claim was finalized before the cut")
	// The lease ends at 2100: a cut within ClockSlack of it counts, one
	// later (an open finalize a recovery could meet) does not.
	require.True(t, require1(t, cutAt(true, 0, 2300), req).Met)
	require.False(t, require1(t, cutAt(true, 0, 2400), req).Met)
}

// cutAt is a zombie run whose finalize trap held d1's COMMIT from 200 to
// end, cut or not, and its claim finalized by d1 at finalized (0: taken
// over by d2 at 2600 instead).
func cutAt(cut bool, finalized, end int) history.Run {
	b := newBuilder("zombie").start(0, "d1", "d2")
	b.produce(1, "job-1", history.KindValid, 10)
	b.claim(1, "d1", 100).add("ai-default", "job-1", "job-1", 150).fault("finalize-trap", "d1", 200, end)
	if cut {
		withParams(b, map[string]string{"cut": "true"})
	}
	if finalized > 0 {
		b.publish(1, finalized)
	} else {
		b.takeover(1, "d2", 2600).publish(1, 2700)
	}
	return b.finish(5000, 6000, true)
}

func TestLandingForDropsBlackBoxRequirementsWithCrashPoints(t *testing.T) {
	reqs := []history.Requirement{{Fault: history.LandZombie, AtLeast: 1}, {Fault: history.LandFinalizeHeld, AtLeast: 1, BlackBox: true}}
	require.Equal(t, reqs[:1], history.LandingFor(reqs, true))
	require.Equal(t, reqs, history.LandingFor(reqs, false))
}

func TestLandingZombieSleepAtACrashPoint(t *testing.T) {
	b := newBuilder("zombie").start(0, "d1")
	b.produce(1, "job-1", history.KindValid, 10).produce(2, "job-2", history.KindValid, 10)
	b.fault("pause-at", "d1", 50, 9000)
	withParams(b, map[string]string{"point": "after-enqueue", "for": "5s"})
	b.run.Processes = append(b.run.Processes, history.ProcessEvent{Instance: "d1r1", Action: "start", Detail: "slot d1", At: ms(60)})
	b.claim(1, "d1r1", 100).add("ai-default", "job-1", "job-1", 150)
	b.takeover(1, "d2", 2200).publish(1, 2250)
	run := b.finish(9100, 9500, true)
	require.True(t, require1(t, run, history.Requirement{Fault: history.LandZombie, AtLeast: 1}).Met)

	// The same claim without its add: the pause did not land where fencing matters.
	b = newBuilder("zombie").start(0, "d1")
	b.produce(1, "job-1", history.KindValid, 10)
	b.fault("pause-at", "d1", 50, 9000)
	b.run.Processes = append(b.run.Processes, history.ProcessEvent{Instance: "d1r1", Action: "start", Detail: "slot d1", At: ms(60)})
	b.claim(1, "d1r1", 100).takeover(1, "d2", 2200).add("ai-default", "job-1", "job-1", 2210).publish(1, 2250)
	require.False(t, require1(t, b.finish(9100, 9500, true), history.Requirement{Fault: history.LandZombie, AtLeast: 1}).Met)
}

// On a PostgreSQL run the fault proxy records the database faults bound to
// the store (faultproxy.StoreBound): a lost COMMIT reply under its own kind,
// a lock conflict as sql-error with store=postgres. The landing rules
// count them as they count MySQL's.
func TestLandingCountsThePostgresFaultRecords(t *testing.T) {
	b := newBuilder("lost-reply-mysql-commit")
	b.fault("lost-reply-postgres-commit", "postgres/d1", 0, 100)
	withParams(b, map[string]string{"fired": "1", "for": "3s"})
	b.fault("lost-reply-postgres-commit", "postgres/d2", 0, 100)
	withParams(b, map[string]string{"fired": "1", "for": "3s"})
	b.fault("sql-error", "postgres/d1", 0, 100)
	withParams(b, map[string]string{"store": "postgres", "refused": "7", "answered": "6"})
	run := b.finish(200, 300, true)
	l := require1(t, run, history.Requirement{Fault: history.LandLostReply, AtLeast: 1, Planned: 2})
	require.Equal(t, 2, l.Landed)
	require.True(t, l.Met)
	l = require1(t, run, history.Requirement{Fault: history.LandSQLError, AtLeast: 5})
	require.Equal(t, 6, l.Landed)
	require.True(t, l.Met)
}

func TestLandingCountsTheHarnesssOwnFaultCounts(t *testing.T) {
	b := newBuilder("lost-reply-redis")
	b.fault("lost-reply-redis-add", "redis/d1", 0, 100)
	withParams(b, map[string]string{"fired": "1"})
	b.fault("lost-reply-redis-add", "redis/d2", 0, 100)
	withParams(b, map[string]string{"fired": "0"})
	b.fault("queue-error", "redis", 0, 100)
	withParams(b, map[string]string{"queue": "ai-bulk", "refused": "9", "answered": "7"})
	run := b.finish(200, 300, true)
	l := require1(t, run, history.Requirement{Fault: history.LandLostReply, AtLeast: 2})
	require.Equal(t, 1, l.Landed)
	require.Equal(t, "1 reply dropped after the request ran; 2 needed", l.Reason)
	l = require1(t, run, history.Requirement{Fault: history.LandQueueError, AtLeast: 5})
	require.Equal(t, 7, l.Landed)
	require.True(t, l.Met)
	l = require1(t, run, history.Requirement{Fault: history.LandServerState, AtLeast: 1})
	require.Zero(t, l.Landed, "a queue-error's answers are not a server state's")
}

// server-state counts the redis-state faults' answered writes, summed over
// the states, and nothing else.
func TestLandingCountsServerStateAnswers(t *testing.T) {
	b := newBuilder("transient-states")
	b.fault("redis-state", "redis", 0, 100)
	withParams(b, map[string]string{"state": "readonly", "refused": "4", "answered": "3"})
	b.fault("redis-state", "redis", 100, 200)
	withParams(b, map[string]string{"state": "oom", "refused": "2", "answered": "2"})
	b.fault("queue-error", "redis", 0, 100)
	withParams(b, map[string]string{"queue": "ai-bulk", "refused": "9", "answered": "9"})
	run := b.finish(200, 300, true)
	l := require1(t, run, history.Requirement{Fault: history.LandServerState, AtLeast: 6})
	require.Equal(t, 5, l.Landed)
	require.False(t, l.Met)
	require.Equal(t, "5 writes answered with a server state's error (READONLY, LOADING, OOM); 6 needed", l.Reason)
}

// store-read-only counts the sql-read-only faults' answered writes, over
// every link, and neither a lock conflict's answers nor a Redis state's.
func TestLandingCountsStoreReadOnlyAnswers(t *testing.T) {
	b := newBuilder("transient-states")
	b.fault("sql-read-only", "mysql", 0, 100)
	withParams(b, map[string]string{"refused": "5", "answered": "4"})
	b.fault("sql-error", "mysql", 0, 100)
	withParams(b, map[string]string{"refused": "9", "answered": "9"})
	b.fault("redis-state", "redis", 100, 200)
	withParams(b, map[string]string{"state": "readonly", "refused": "7", "answered": "7"})
	run := b.finish(200, 300, true)
	l := require1(t, run, history.Requirement{Fault: history.LandStoreReadOnly, AtLeast: 5})
	require.Equal(t, 4, l.Landed, "only what the proxy answered counts, not what it refused")
	require.False(t, l.Met)
	require.Equal(t, "4 writes answered with the store's read-only error (MySQL 1290, PostgreSQL 25006); 5 needed", l.Reason)
	l = require1(t, run, history.Requirement{Fault: history.LandStoreReadOnly, AtLeast: 4})
	require.True(t, l.Met)
	l = require1(t, run, history.Requirement{Fault: history.LandServerState, AtLeast: 1})
	require.Equal(t, 7, l.Landed, "a store's read-only answers are not Redis's")
}

// store-read-only also counts the statements the server itself refused
// with 1290 while the harness held it read-only (a store-read-only window):
// not one refused outside the window, not another error, not Redis's.
func TestLandingCountsTheServersOwnReadOnlyRefusals(t *testing.T) {
	b := newBuilder("transient-states")
	b.fault("store-read-only", "mysql", 100, 200)
	stmt := func(at int, reply, store string) { b.refused("UPDATE", at, reply, store) }
	readOnly := "1290 The MariaDB server is running with the --read-only option so it cannot execute this statement"
	stmt(120, readOnly, "mysql")
	stmt(150, readOnly, "mysql")
	stmt(90, readOnly, "mysql")                                       // before the window: not the harness's
	stmt(160, "1213 Deadlock found when trying to get lock", "mysql") // not read-only
	stmt(170, readOnly, "")                                           // a Redis command's reply
	run := b.finish(300, 400, true)
	l := require1(t, run, history.Requirement{Fault: history.LandStoreReadOnly, AtLeast: 2})
	require.Equal(t, 2, l.Landed)
	require.True(t, l.Met)
}

// server-state also counts the Redis commands the server itself refused
// with -OOM while the harness held its Redis over its memory limit (a
// redis-maxmemory window), besides the proxy's own answers: not one outside
// the window, not another error, not a store's.
func TestLandingCountsTheServersOwnOOMRefusals(t *testing.T) {
	b := newBuilder("transient-states")
	b.fault("redis-state", "redis", 10, 50)
	withParams(b, map[string]string{"state": "oom", "refused": "3", "answered": "3"})
	b.fault(history.FaultRedisMaxMemory, "redis", 100, 200)
	cmd := func(at int, reply, store string) { b.refused("EVALSHA", at, reply, store) }
	oom := "OOM command not allowed when used memory > 'maxmemory'."
	cmd(120, oom, "")
	cmd(150, oom, "")
	cmd(90, oom, "")                                                      // before the window: the proxy's phase, counted by answered
	cmd(160, "READONLY You can't write against a read only replica.", "") // not OOM
	cmd(170, oom, "mysql")                                                // a store's statement
	run := b.finish(300, 400, true)
	l := require1(t, run, history.Requirement{Fault: history.LandServerState, AtLeast: 5})
	require.Equal(t, 5, l.Landed, "3 answered by the proxy, 2 refused by the server inside its window")
	require.True(t, l.Met)
}

func TestLandingOutageFailuresAndStalls(t *testing.T) {
	b := newBuilder("redis-outage").start(0, "d1")
	b.fault("down", "redis", 1000, 2000)
	for i := int64(1); i <= 4; i++ {
		b.produce(i, "job-"+itoa(i), history.KindValid, 10)
	}
	b.claim(1, "d1", 1100).failTransient(1, 1300, "redis down", 500*time.Millisecond) // failed inside
	b.claim(2, "d1", 900).add("ai-default", "job-2", "job-2", 2100).publish(2, 2150)  // waited across it
	b.claim(3, "d1", 100).add("ai-default", "job-3", "job-3", 150).publish(3, 200)    // before it
	b.claim(4, "d1", 3400).failTransient(4, 3500, "other", 500*time.Millisecond)      // long after it
	run := b.finish(4000, 5000, true)
	l := require1(t, run, history.Requirement{Fault: history.LandOutageFailed, Target: "redis", AtLeast: 1})
	require.Equal(t, 1, l.Landed)
	require.Equal(t, "1 event met a transient failure inside the outage (redis); 1 needed", l.Reason)
	require.Equal(t, 2, require1(t, run, history.Requirement{Fault: history.LandOutageStalled, Target: "redis", AtLeast: 1}).Landed)
	require.Zero(t, require1(t, run, history.Requirement{Fault: history.LandOutageFailed, Target: "mysql", AtLeast: 1}).Landed)
}

func TestLandingUnknownRequirementIsNeverMet(t *testing.T) {
	l := require1(t, crashRun(), history.Requirement{Fault: "frobnicate", AtLeast: 0})
	require.False(t, l.Met)
	require.Contains(t, l.Reason, "not known")
}

func TestDecideLandingMakesAPassUnknownButNotAFail(t *testing.T) {
	pass := []Result{{ID: "I1", Verdict: Pass}}
	fail := []Result{{ID: "I1", Verdict: Fail}}
	missed := []Landing{{Fault: history.LandCrashWindow, Met: false}}
	landed := []Landing{{Fault: history.LandCrashWindow, Met: true}}
	v, why := Decide(pass, nil, missed)
	require.Equal(t, Unknown, v)
	require.Contains(t, why, "did not land")
	require.Equal(t, Pass, verdictOf(Decide(pass, nil, landed)))
	require.Equal(t, Pass, verdictOf(Decide(pass, nil, nil)))
	require.Equal(t, Fail, verdictOf(Decide(fail, nil, missed)))
	require.Equal(t, Unknown, verdictOf(Decide(nil, nil, nil)))
}

func TestI2ExpectsFailedEventsWhoseQueueWasBrokenForAllTheirAttempts(t *testing.T) {
	b := newBuilder("queue-error").start(0, "d1")
	b.fault("queue-error", "redis", 1000, 5000)
	withParams(b, map[string]string{"queue": "ai-default", "answered": "5"})
	b.produce(1, "job-1", history.KindValid, 900).produce(2, "job-2", history.KindValid, 500)
	b.claim(1, "d1", 1000).failTransient(1, 1010, "broken", 100*time.Millisecond)
	b.claim(1, "d1", 1200).failPermanent(1, 1210, "broken: max attempts")
	// Event 2 failed once before the break: its budget was not all broken.
	b.claim(2, "d1", 500).failTransient(2, 510, "other", 600*time.Millisecond)
	b.claim(2, "d1", 1200).failPermanent(2, 1210, "broken: max attempts")
	run := b.finish(6000, 9000, true)
	r := Check(I2, run)
	require.Equal(t, Fail, r.Verdict)
	require.Len(t, r.Violations, 1)
	require.Equal(t, int64(2), r.Violations[0].EventID)

	b.rows[2].status = history.StatusPublished // as if event 2 had been published
	run.Final.Outbox[1].Status = history.StatusPublished
	run.Final.Jobs[1].Status = history.JobQueued
	r = Check(I2, run)
	require.Equal(t, Pass, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "1 more ended failed as expected")
}

func TestLandingOutageStalledCountsEventsLeftUnclaimedThroughIt(t *testing.T) {
	b := newBuilder("mysql-outage").start(0, "d1")
	b.fault("down", "mysql", 1000, 4000)
	b.produce(1, "job-1", history.KindValid, 1500).claim(1, "d1", 4100).publish(1, 4150) // held up
	b.produce(2, "job-2", history.KindValid, 3900).claim(2, "d1", 4100).publish(2, 4150) // too late to tell
	b.produce(3, "job-3", history.KindValid, 1500).claim(3, "d1", 1550).publish(3, 1600) // claimed inside: not held up
	run := b.finish(5000, 6000, true)
	require.Equal(t, 1, require1(t, run, history.Requirement{Fault: history.LandOutageStalled, Target: "mysql", AtLeast: 1}).Landed)
	require.Zero(t, require1(t, run, history.Requirement{Fault: history.LandOutageFailed, Target: "mysql", AtLeast: 1}).Landed)
}

// On PostgreSQL the outage is on "postgres" (or one instance's link,
// "postgres/d1"), while mysql-outage's requirement names the store as
// "mysql", whichever it is: the store's outage counts either way, Redis's
// never does.
func TestLandingOutageOnPostgresCountsForTheStore(t *testing.T) {
	for _, target := range []string{"postgres", "postgres/d1", "mysql/d1"} {
		b := newBuilder("mysql-outage").start(0, "d1")
		b.fault("down", target, 1000, 4000)
		b.produce(1, "job-1", history.KindValid, 1500).claim(1, "d1", 4100).publish(1, 4150) // held up
		run := b.finish(5000, 6000, true)
		require.Equal(t, 1, require1(t, run, history.Requirement{Fault: history.LandOutageStalled, Target: "mysql", AtLeast: 1}).Landed, target)
		require.Zero(t, require1(t, run, history.Requirement{Fault: history.LandOutageStalled, Target: "redis", AtLeast: 1}).Landed, target)
	}
}

func verdictOf(v Verdict, _ string) Verdict { return v }

// An event waited in the outage when a claim of it went back to pending
// inside it, or when, produced inside, it was not settled before the end;
// one claimed and settled inside it (the outage did not hold it up) did
// not.
func TestLandingOutageStallCountsAClaimGivenBack(t *testing.T) {
	b := newBuilder("redis-restart").start(0, "d1")
	b.fault("server-restart", "redis", 1000, 2000)
	b.produce(1, "job-1", history.KindValid, 1200)
	b.produce(2, "job-2", history.KindValid, 1200)
	b.claim(1, "d1", 1250).release(1, 1300).claim(1, "d1", 2300).add("ai-default", "job-1", "job-1", 2350).publish(1, 2400)
	b.claim(2, "d1", 1250).add("ai-default", "job-2", "job-2", 1260).publish(2, 1300)
	// Claimed before it, given back inside it, published before it ended.
	b.produce(3, "job-3", history.KindValid, 500)
	b.claim(3, "d1", 900).release(3, 1600).claim(3, "d1", 1700).add("ai-default", "job-3", "job-3", 1750).publish(3, 1800)
	run := b.finish(3000, 4000, true)
	require.Equal(t, 2, require1(t, run, history.Requirement{Fault: history.LandOutageStalled, Target: "redis", AtLeast: 1}).Landed)
}

// A window trap's own sighting of the job (its "seen" param, before the
// kill) proves the add was done when the keyspace record of the creation
// came later, as it does for a dispatcher with no events stream when the
// observer lags; a sighting after the kill proves nothing.
func TestLandingCrashWindowTakesTheTrapsSighting(t *testing.T) {
	trapped := func(seen int) history.Run {
		b := newBuilder("crash-window").start(0, "d1", "d2")
		b.produce(1, "job-1", history.KindValid, 10)
		b.claim(1, "d1", 100).fault("window-trap", "d1", 150, 200)
		withParams(b, map[string]string{"job": "job-1", "seen": ms(seen).Format(time.RFC3339Nano)})
		b.proc("d1", "kill", 200).add("ai-default", "job-1", "job-1", 280)
		b.takeover(1, "d2", 2200).publish(1, 2250)
		return b.finish(2300, 4000, true)
	}
	req := history.Requirement{Fault: history.LandCrashWindow, AtLeast: 1, Planned: 1}
	require.True(t, require1(t, trapped(180), req).Met, "seen at 180 ms, killed at 200 ms")
	l := require1(t, trapped(220), req)
	require.False(t, l.Met, "seen after the kill")
	require.Equal(t, 0, l.Landed)
}

// half-open lands on a fault of an instance's own link that held something
// of it while a claim of it ran out its lease and another instance took the
// claim over, or recovered it, before the fault ended.
func TestLandingHalfOpenTakeovers(t *testing.T) {
	b := newBuilder("half-open").start(0, "d1", "d2", "d3")
	b.writers = true
	for id := int64(1); id <= 6; id++ {
		b.produce(id, fmt.Sprintf("job-%d", id), history.KindValid, 10)
	}
	// d1's store link held its finalize; its lease (to 2100) ran out, d2
	// recovered the claim at 2400 and finalized it: landed.
	b.fault("half-open", "mysql/d1", 500, 3500)
	withParams(b, map[string]string{"held": "1", "handshakes": "0"})
	b.claim(1, "d1", 100).add("ai-default", "job-1", "job-1", 150)
	b.giveBack(1, 2400, "", 0).by("d2").claim(1, "d2", 2500).publish(1, 2600)
	// d2's Redis link held only a handshake, and d2 gave its claim back
	// itself before the lease ran out: not landed.
	b.fault("half-open", "redis/d2", 4000, 7000)
	withParams(b, map[string]string{"held": "0", "handshakes": "1", "handshake": "true"})
	b.claim(2, "d2", 4100).release(2, 5200).by("d2").claim(2, "d3", 5300).publish(2, 5400)
	// d3's Redis link held its add; d1 took the claim over at 10300, after
	// the lease end: landed.
	b.fault("half-open", "redis/d3", 8000, 11000)
	withParams(b, map[string]string{"held": "1", "handshakes": "0"})
	b.claim(3, "d3", 8100).takeover(3, "d1", 10300).add("ai-default", "job-3", "job-3", 10350).publish(3, 10400)
	// d1's link held its statement, but the takeover came only after the
	// fault ended: not landed.
	b.fault("half-open", "mysql/d1", 12000, 15000)
	withParams(b, map[string]string{"held": "2"})
	b.claim(4, "d1", 12100).takeover(4, "d2", 15800).add("ai-default", "job-4", "job-4", 15850).publish(4, 15900)
	// A fault that held nothing lands nothing, whatever the claims did.
	b.fault("half-open", "mysql/d2", 16000, 19000)
	withParams(b, map[string]string{"held": "0", "handshakes": "0"})
	b.claim(5, "d2", 16100).takeover(5, "d3", 18300).add("ai-default", "job-5", "job-5", 18350).publish(5, 18400)
	// d3's recovery of its own claim is no other instance's takeover.
	b.fault("half-open", "redis/d3", 20000, 23000)
	withParams(b, map[string]string{"held": "1"})
	b.claim(6, "d3", 20100).giveBack(6, 22300, "", 0).by("d3").claim(6, "d3", 22400).add("ai-default", "job-6", "job-6", 22450).publish(6, 22500)
	run := b.finish(24000, 25000, true)
	l := require1(t, run, history.Requirement{Fault: history.LandHalfOpen, AtLeast: 3, Planned: 6})
	require.Equal(t, 2, l.Landed)
	require.False(t, l.Met)
	require.Equal(t, "2 of 6 planned half-open links held an instance's statement or command while a claim of it ran out its lease and another instance took that claim over; 3 needed", l.Reason)

	// Without leases nothing can run out: every fault that held something
	// of its instance landed, the one that held nothing did not.
	run.Meta.Model = history.Model{Form: history.FormCursor, Lacks: []string{history.LackClaims, history.LackLeases}}
	l = require1(t, run, history.Requirement{Fault: history.LandHalfOpen, AtLeast: 3, Planned: 6})
	require.Equal(t, 5, l.Landed)
	require.True(t, l.Met)
	require.Equal(t, "5 of 6 planned half-open links held an instance's statement or command (the outbox has no leases to run out); 3 needed", l.Reason)
}

// A PostgreSQL run records the store's outage on "postgres": the catalog's
// store requirement (target "mysql") counts it, and a Redis one does not.
func TestLandingOutageOnThePostgresStore(t *testing.T) {
	b := newBuilder("mysql-outage").start(0, "d1")
	b.fault("down", "postgres", 1000, 4000)
	b.produce(1, "job-1", history.KindValid, 1500).claim(1, "d1", 4100).publish(1, 4150) // held up
	run := b.finish(5000, 6000, true)
	require.Equal(t, 1, require1(t, run, history.Requirement{Fault: history.LandOutageStalled, Target: "mysql", AtLeast: 1}).Landed)
	require.Zero(t, require1(t, run, history.Requirement{Fault: history.LandOutageStalled, Target: "redis", AtLeast: 1}).Landed)
}

// zone-lease and zone-backoff count the claims that wrote a lease end and
// the transient failures that wrote a backoff, only when the run recorded
// that the server's zone and the instances' differed.
func TestLandingZonesCountLeasesAndBackoffsOnlyWhenTheZonesDiffered(t *testing.T) {
	b := newBuilder("time-zones").start(0, "d1", "d2")
	for i := int64(1); i <= 3; i++ {
		b.produce(i, "job-"+itoa(i), history.KindValid, 10)
	}
	b.claim(1, "d1", 100).failTransient(1, 200, "redis: queue broken", 300*time.Millisecond).claim(1, "d2", 600).publish(1, 700)
	b.claim(2, "d1", 100).publish(2, 150)
	b.claim(3, "d2", 100).publish(3, 150)
	run := b.finish(1000, 1100, true)
	lease := history.Requirement{Fault: history.LandZoneLease, AtLeast: 3}
	backoff := history.Requirement{Fault: history.LandZoneBackoff, AtLeast: 1}

	l := require1(t, run, lease)
	require.Zero(t, l.Landed, "no zones recorded: nothing landed")
	require.Contains(t, l.Reason, "(no zones were applied)")
	run.Meta.Zones = &history.Zones{Server: "+07:00", ServerOffset: "+07:00", Process: "Asia/Bangkok", ProcessOffset: "+07:00"}
	require.Zero(t, require1(t, run, lease).Landed, "the same offset on both sides: nothing landed")

	run.Meta.Zones = &history.Zones{Server: "+07:00", ServerOffset: "+07:00", Process: "America/New_York", ProcessOffset: "-05:00"}
	l = require1(t, run, lease)
	require.Equal(t, 4, l.Landed)
	require.True(t, l.Met)
	require.Equal(t, "4 claims wrote a lease end while the server's time zone and the instances' differed (server +07:00, UTC+07:00; instances TZ=America/New_York, UTC-05:00); 3 needed", l.Reason)
	l = require1(t, run, backoff)
	require.Equal(t, 1, l.Landed)
	require.True(t, l.Met, l.Reason)
}

// failure-write counts the failure-write kinds with an event that ended
// failed, only in a run whose last_error was narrowed below the 64
// characters of the queue name those events carry.
func TestLandingCountsFailureWriteKinds(t *testing.T) {
	long := "ai-refused-" + strings.Repeat("x", 53)
	multi := "ai-refusé-" + strings.Repeat("é€🚫", 18)
	build := func(width string, multibyteFails bool) history.Run {
		b := newBuilder("failure-write").start(0, "d1")
		b.fault(history.FaultNarrowColumn, "schema", 0, 0)
		withParams(b, map[string]string{"table": "outbox_events", "column": "last_error", "width": width})
		b.produce(1, "job-1", history.KindLongError, 10)
		b.produce(2, "job-2", history.KindMultibyteError, 20)
		b.produce(3, "job-3", history.KindQueueDenied, 30)
		b.run.Events[0].Queue, b.run.Events[1].Queue = long, multi
		b.claim(1, "d1", 100).failPermanent(1, 150, "queue_not_allowed: queue \"ai-refused-xxxxxxxxxxx")
		b.claim(3, "d1", 100).failPermanent(3, 150, "queue_not_allowed")
		b.claim(2, "d1", 100)
		if multibyteFails {
			b.failPermanent(2, 150, "queue_not_allowed: queue \"ai-refusé-é€🚫")
		} else {
			b.failTransient(2, 150, "attempt 1 of 5: refused: error 1406", 500*time.Millisecond)
		}
		return b.finish(1000, 2000, true)
	}
	req := history.Requirement{Fault: history.LandFailureWrite, AtLeast: 2, Planned: 2}
	l := require1(t, build("48", false), req)
	require.Equal(t, 1, l.Landed, "the queue-not-allowed event is not a failure-write kind")
	require.False(t, l.Met)
	require.Equal(t, "1 of 2 planned failure-write kinds with an event that ended failed while last_error was narrowed below the quoted field; 2 needed", l.Reason)
	l = require1(t, build("48", true), req)
	require.Equal(t, 2, l.Landed)
	require.True(t, l.Met)
	require.Zero(t, require1(t, build("64", true), req).Landed, "a column as wide as the quoted field put no text at risk")
	run := build("48", true)
	run.Faults = nil
	require.Zero(t, require1(t, run, req).Landed, "no narrowing, no landing")
}
