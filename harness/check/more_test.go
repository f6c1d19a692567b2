package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// oneEvent is a run with event 1 about job j-1, claimed by d1.
func oneEvent() *builder {
	b := newBuilder("baseline").start(0, "d1", "d2")
	return b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100)
}

func TestKeyNotesWithoutData(t *testing.T) {
	b := oneEvent().add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	run := b.finish(300, 12000, true)
	// A worker popping an id with no hash makes a "new" note with no data.
	run.Keys = append(run.Keys, history.KeyNote{Queue: "ai-default", JobID: "j-1", Event: "new", At: ms(5000)})
	require.Equal(t, Pass, Check(I1, run).Verdict)
	// With the stream blind, that note may be the only trace of a creation.
	run.Gaps = append(run.Gaps, history.Gap{Source: "stream:ai-default", At: ms(4000)})
	require.Equal(t, Fail, Check(I1, run).Verdict)

	// A note with data and no stream entry is a creation on its own.
	run = b.finish(300, 12000, true)
	run.Keys = append(run.Keys, history.KeyNote{Queue: "ai-default", JobID: "j-1", Event: "new", DataJobID: "j-1", Data: `{"jobId":"j-1"}`, At: ms(6000)})
	require.Equal(t, Fail, Check(I1, run).Verdict)
	// BullMQ's own keys are not job hashes.
	run = b.finish(300, 12000, true)
	run.Keys = append(run.Keys, history.KeyNote{Queue: "ai-default", JobID: "meta", Event: "new", At: ms(60)})
	require.Equal(t, Pass, Check(I1, run).Verdict)
}

func TestInconsistencies(t *testing.T) {
	cases := map[string]struct {
		build   func() history.Run
		verdict Verdict
		words   string
	}{
		"published without a job row": {func() history.Run {
			b := oneEvent().add("ai-default", "j-1", "j-1", 150).publish(1, 200)
			delete(b.jobs, "j-1")
			return b.finish(300, 12000, true)
		}, Fail, "Event 1 was published but its job j-1 does not exist in ai_jobs."},
		"published with the job still created": {func() history.Run {
			b := oneEvent().add("ai-default", "j-1", "j-1", 150).publish(1, 200)
			b.jobs["j-1"].Status = history.JobCreated
			return b.finish(300, 12000, true)
		}, Fail, "Event 1 was published but its job j-1 is still created, not queued."},
		"failed with the job queued": {func() history.Run {
			b := oneEvent().failPermanent(1, 200, "boom")
			b.jobs["j-1"].Status = history.JobQueued
			return b.finish(300, 12000, true)
		}, Fail, "Event 1 ended failed but its job j-1 is queued."},
		"failed with a job in BullMQ": {func() history.Run {
			return oneEvent().add("ai-default", "j-1", "j-1", 150).failPermanent(1, 1200, errRedis).finish(1300, 12000, true)
		}, Fail, "Event 1 ended failed, yet a BullMQ job exists for its job j-1."},
		"job queued while the event is in flight": {func() history.Run {
			b := oneEvent()
			b.jobs["j-1"].Status = history.JobQueued
			return b.finish(300, 1000, false)
		}, Fail, "Job j-1 is queued while its event 1 is still processing."},
		"published before the add": {func() history.Run {
			return oneEvent().publish(1, 200).add("ai-default", "j-1", "j-1", 900).finish(1000, 12000, true)
		}, Fail, "Event 1 was marked published by d1 at 10:00:00.200, before its job j-1 was created in BullMQ at 10:00:00.900."},
		"no creation seen, both sources blind": {func() history.Run {
			return oneEvent().publish(1, 200).gap("stream:ai-default", 150, "trimmed").gap("keyspace", 150, "dropped").finish(300, 12000, true)
		}, Unknown, "both creation sources of queue ai-default had gaps"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := Check(I3, c.build())
			require.Equal(t, c.verdict, r.Verdict, r.Reason)
			if c.verdict == Fail {
				require.Equal(t, c.words, r.Violations[0].Summary)
				checkResultShape(t, r)
			} else {
				require.Contains(t, r.Reason, c.words)
			}
		})
	}
}

func TestWritesByOthers(t *testing.T) {
	b := oneEvent().add("ai-default", "j-1", "j-1", 150)
	b.emit(b.rows[1], 200, "update", history.StatusPublished, func(r *outboxRow) { r.lockedBy, r.token = "d2", "tokX" })
	r := Check(I5, b.finish(300, 12000, true))
	require.Equal(t, Fail, r.Verdict)
	require.Equal(t, "Event 1 was moved to published by d2 (token tokX) at 10:00:00.200 while the claim belonged to d1 (token tok01-be).", r.Violations[0].Summary)
	require.Equal(t, []string{"d2", "d1"}, r.Violations[0].Instances)

	b = newBuilder("baseline").start(0, "d1").produce(1, "j-1", history.KindValid, 50)
	b.emit(b.rows[1], 200, "update", history.StatusPublished, func(r *outboxRow) { r.lockedBy = "d1" })
	r = Check(I5, b.finish(300, 12000, true))
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "while nobody held it (it was pending)")
}

func TestJobChangesSeenElsewhere(t *testing.T) {
	b := oneEvent().add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	run := b.finish(300, 12000, true)
	run.Keys = append(run.Keys, history.KeyNote{Queue: "ai-default", JobID: "j-1", Event: "hset", Data: `{ "jobId" : "j-1" }`, Opts: `{"attempts":1,"jobId":"j-1"}`, At: ms(400)})
	require.Equal(t, Pass, Check(I9, run).Verdict, "the same JSON in another layout is no change")

	opts := append([]history.KeyNote(nil), run.Keys...)
	opts = append(opts, history.KeyNote{Queue: "ai-default", JobID: "j-1", Event: "hset", Data: `{"jobId":"j-1"}`, Opts: `{"jobId":"j-1","attempts":9}`, At: ms(500)})
	bad := run
	bad.Keys = opts
	r := Check(I9, bad)
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "Job j-1's opts in queue ai-default was overwritten")
	require.Len(t, r.Violations, 1, "the final scan's view of the same change is not a second violation")

	took := run
	took.Takes = []history.Take{{Queue: "ai-default", JobID: "j-1", DataJobID: "j-9", Worker: "w1", At: ms(600)}}
	r = Check(I9, took)
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "when a consumer took it")

	noReads := run
	noReads.Keys = nil
	r = Check(I9, noReads)
	require.Equal(t, Unknown, r.Verdict)
	require.Contains(t, r.Reason, "had no earlier read")
}

// A loaded keyspace observer may read a new job seconds after the stream
// shows its add: one creation seen late, not two.
func TestLateKeyspaceNoteIsTheSameCreation(t *testing.T) {
	run := oneEvent().add("ai-default", "j-1", "j-1", 150).publish(1, 200).finish(300, 12000, true)
	for i := range run.Keys {
		if run.Keys[i].Event == "new" {
			run.Keys[i].At = ms(4150)
		}
	}
	require.Equal(t, Pass, Check(I1, run).Verdict, Check(I1, run).Violations)
	// A second add after the job hash was deleted is a second creation, in
	// both sources, however late either reads it.
	run = oneEvent().add("ai-default", "j-1", "j-1", 150).publish(1, 200).finish(300, 12000, true)
	run.Keys = append(run.Keys,
		history.KeyNote{Queue: "ai-default", JobID: "j-1", Event: "del", At: ms(1000)},
		history.KeyNote{Queue: "ai-default", JobID: "j-1", Event: "new", DataJobID: "j-1", Data: `{"jobId":"j-1"}`, At: ms(9000)})
	run.Stream = append(run.Stream, history.StreamEntry{Queue: "ai-default", ID: "x", At: ms(2000), Event: "added", JobID: "j-1"})
	require.Equal(t, Fail, Check(I1, run).Verdict)
}

// A restarted Redis replaying its append-only file notifies "new" for jobs
// that already existed; the observer records those as "reload" reads.
func TestReloadedJobIsNotASecondCreation(t *testing.T) {
	run := oneEvent().add("ai-default", "j-1", "j-1", 150).publish(1, 200).finish(300, 12000, true)
	run.Keys = append(run.Keys, history.KeyNote{Queue: "ai-default", JobID: "j-1", Event: eventReload,
		DataJobID: "j-1", Data: `{"jobId":"j-1"}`, At: ms(5000)})
	require.Equal(t, Pass, Check(I1, run).Verdict)
	require.Equal(t, Pass, Check(I9, run).Verdict)
}

// I7 is put to the test only by an event that kept failing up to the
// maximum (5 attempts in the builder's tuning): one retry that then
// succeeds proves nothing about the bound.
func TestAttemptsExercisedOnlyAtTheBound(t *testing.T) {
	b := newBuilder("redis-outage").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100).failTransient(1, 200, errRedis, 100*time.Millisecond)
	b.claim(1, "d1", 400).add("ai-default", "j-1", "j-1", 450).publish(1, 500)
	r := Check(I7, b.finish(600, 12000, true))
	require.Equal(t, NotExercised, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "the most transient failures of one event was 1")

	b = newBuilder("redis-outage").start(0, "d1")
	b.produce(1, "j-1", history.KindUnknownType, 50)
	at := 100
	for i := 0; i < 4; i++ {
		b.claim(1, "d1", at).failTransient(1, at+10, errRedis, 100*time.Millisecond)
		at += 200
	}
	b.claim(1, "d1", at).failPermanent(1, at+10, "gave up after 5 attempts")
	r = Check(I7, b.finish(at+100, 12000, true))
	require.Equal(t, Pass, r.Verdict, "4 transient failures, then failed at the 5th attempt: %s", r.Reason)
}

// A keyspace note is dated when the harness saw it, which lags the add
// under load: without a stream entry to date the creation, a publish
// before the note proves nothing. The same history with the stream fails.
func TestPublishedBeforeAKeyspaceOnlyCreationIsNoProof(t *testing.T) {
	run := oneEvent().publish(1, 200).add("ai-default", "j-1", "j-1", 900).finish(1000, 12000, true)
	require.Equal(t, Fail, Check(I3, run).Verdict)
	run.Stream = nil
	r := Check(I3, run)
	require.Equal(t, Pass, r.Verdict, r.Reason)
}
