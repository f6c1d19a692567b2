package check

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

var update = flag.Bool("update", false, "rewrite testdata/histories from the builders in histories_test.go")

// historiesDir holds the stored runs, at the repository's top level.
var historiesDir = filepath.Join("..", "..", "testdata", "histories")

// stored lists every stored history and how it is built. The stored files
// are the test input; the builders document and regenerate them:
//
//	go test ./harness/check -run TestRegenerate -update
var stored = map[string]func() history.Run{
	"good-clean":               goodClean,
	"good-chaos":               goodChaos,
	"exempt-i8-nobody-alive":   exemptNobodyAlive,
	"pass-i1-stream-gap-only":  streamGapOnly,
	"bad-i1-dedupe-horizon":    badDedupeHorizon,
	"bad-i1-numeric-ids":       badNumericIDs,
	"bad-i1-proven-with-gaps":  badProvenWithGaps,
	"bad-i2-never-claimed":     badNeverClaimed,
	"bad-i3-published-no-job":  badPublishedNoJob,
	"bad-i4-poison-retried":    badPoisonRetried,
	"bad-i5-stolen-claim":      badStolenClaim,
	"bad-i5-rewrite-finalized": badRewriteFinalized,
	"bad-i6-no-backoff":        badNoBackoff,
	"bad-i7-retry-forever":     badRetryForever,
	"bad-i7-failed-early":      badFailedEarly,
	"bad-i8-slow-recovery":     badSlowRecovery,
	"bad-i9-overwrite":         badOverwrite,
	"unknown-i1-gaps":          unknownGaps,
	"unknown-i2-not-quiesced":  unknownNotQuiesced,
	"pass-i9-read-across-gap":  readAcrossGap,
	"unknown-i9-lived-in-gap":  livedInGap,
	"bad-i9-overwrite-in-gap":  overwriteInGap,
}

// TestRegenerate checks that every stored history is what its builder
// makes; with -update it writes them first.
func TestRegenerate(t *testing.T) {
	for name, build := range stored {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(historiesDir, name)
			built := build()
			if *update {
				require.NoError(t, history.Write(dir, built))
			}
			loaded, err := history.Load(dir)
			require.NoError(t, err, "run: go test ./harness/check -run TestRegenerate -update")
			want, err := json.Marshal(built)
			require.NoError(t, err)
			got, err := json.Marshal(loaded)
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(got), "stored history %s is stale: go test ./harness/check -run TestRegenerate -update", name)
		})
	}
}

const errRedis = "redis: i/o timeout"

// goodClean: two instances, valid events published once each, an
// already-queued event closed without an add, one poison event of each kind
// failed at once, a consumer taking every job.
func goodClean() history.Run {
	b := newBuilder("baseline").start(0, "d1", "d2")
	for i, job := range []string{"j-1", "j-2", "j-3", "j-4"} {
		b.produce(int64(i+1), job, history.KindValid, 100)
	}
	b.produce(5, "j-5", history.KindAlreadyQueued, 100)
	b.produce(6, "j-6", history.KindUnknownType, 100)
	b.produce(7, "j-7", history.KindMissingJob, 100)
	b.produce(8, "j-8", history.KindQueueDenied, 100)
	b.produce(9, "job:9", history.KindIllegalJobID, 100)
	b.claim(1, "d1", 200).claim(2, "d1", 200).claim(3, "d2", 200).claim(4, "d2", 200)
	b.add("ai-default", "j-1", "j-1", 220).add("ai-default", "j-2", "j-2", 225)
	b.add("ai-default", "j-3", "j-3", 221).add("ai-default", "j-4", "j-4", 226)
	b.publish(1, 250).publish(2, 250).publish(3, 251).publish(4, 251)
	b.claim(5, "d1", 300).publish(5, 310)
	b.claim(6, "d2", 300).failPermanent(6, 310, "unknown event type ai.job.frobnicate")
	b.claim(7, "d2", 300).failPermanent(7, 310, "job j-7 not found")
	b.claim(8, "d2", 300).failPermanent(8, 310, "queue ai-secret not allowed")
	b.claim(9, "d2", 300).failPermanent(9, 310, "illegal jobId job:9")
	b.take("ai-default", "j-1", "w1", 400, false).take("ai-default", "j-2", "w1", 450, false)
	b.take("ai-default", "j-3", "w2", 420, false).take("ai-default", "j-4", "w2", 470, false)
	return b.finish(600, 10000, true)
}

// goodChaos: a crash between add and publish whose re-add BullMQ deduped,
// a lease recovery, transient failures under a Redis outage with proper
// backoff, a graceful release, a poison event whose first claim was lost to
// a crash, and an already-queued event.
func goodChaos() history.Run {
	b := newBuilder("crash-window").start(0, "d1", "d2", "d3")
	for i := int64(1); i <= 5; i++ {
		b.produce(i, "j-"+itoa(i), history.KindValid, 50)
	}
	b.produce(6, "j-6", history.KindUnknownType, 50)
	b.produce(7, "j-7", history.KindMissingJob, 50)
	b.produce(10, "j-10", history.KindAlreadyQueued, 50)
	// Event 1: d1 adds, then dies at its crash point before markPublished.
	b.claim(1, "d1", 100).claim(2, "d1", 120).claim(6, "d1", 130)
	b.add("ai-default", "j-1", "j-1", 150)
	b.proc("d1", "crashpoint", 155).proc("d1", "kill", 160).fault("kill", "d1", 160, 160)
	b.take("ai-default", "j-1", "w1", 300, false)
	// Events 3 and 4: transient failures during a Redis blackhole.
	b.fault("blackhole", "redis", 250, 1900)
	b.claim(3, "d2", 300).claim(4, "d3", 300)
	b.failTransient(3, 1300, errRedis, 500*time.Millisecond).failTransient(4, 1300, errRedis, 600*time.Millisecond)
	b.claim(3, "d2", 1850).add("ai-default", "j-3", "j-3", 1950).publish(3, 1960)
	b.claim(4, "d3", 1910).failTransient(4, 1920, "redis: connection reset", 1000*time.Millisecond)
	b.take("ai-default", "j-3", "w1", 2000, false)
	// Event 1 taken over after d1's lease ran out; the re-add is a duplicate.
	b.takeover(1, "d2", 2150).add("ai-default", "j-1", "j-1", 2170).publish(1, 2200)
	// Event 2 recovered to pending, then claimed by d3.
	b.release(2, 2150).claim(2, "d3", 2200).add("ai-default", "j-2", "j-2", 2230).publish(2, 2250)
	// Event 6 (poison) taken over from the dead d1 and failed at once.
	b.takeover(6, "d3", 2300).failPermanent(6, 2310, "unknown event type ai.job.frobnicate")
	b.claim(7, "d3", 2300).failPermanent(7, 2310, "job j-7 not found")
	b.claim(4, "d3", 2950).add("ai-default", "j-4", "j-4", 2970).publish(4, 2980)
	// Event 5: d2 is stopped gracefully and releases it; d3 takes it.
	b.claim(5, "d2", 3000).proc("d2", "term", 3010).release(5, 3020).proc("d2", "exit", 3030)
	b.claim(5, "d3", 3100).add("ai-default", "j-5", "j-5", 3120).publish(5, 3150)
	b.claim(10, "d3", 3300).publish(10, 3310)
	b.take("ai-default", "j-2", "w1", 2300, false).take("ai-default", "j-4", "w2", 3000, false)
	b.take("ai-default", "j-5", "w2", 3200, false)
	return b.finish(3400, 12000, true)
}

// exemptNobodyAlive: d1 dies holding a claim and no instance runs until
// long after its lease: the late takeover is not I8's fault.
func exemptNobodyAlive() history.Run {
	b := newBuilder("lease-expiry").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).proc("d1", "kill", 200)
	b.start(5900, "d2").takeover(1, "d2", 6000).add("ai-default", "j-1", "j-1", 6050).publish(1, 6100)
	return b.finish(6200, 15000, true)
}

// streamGapOnly: the stream had a gap but keyspace notifications saw every
// creation: I1 still passes.
func streamGapOnly() history.Run {
	b := newBuilder("redis-latency").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	b.gap("stream:ai-default", 300, "first id read 1764410400400-0 is newer than the last seen 1764410400150-0")
	b.claim(2, "d1", 400).add("ai-default", "j-2", "j-2", 450).publish(2, 500)
	return b.finish(600, 10000, true)
}

// crashAndReadd is the crash window: d1 adds job j-1 and is killed before
// publishing; d2 takes event 1 over and adds again.
func crashAndReadd(b *builder, removeBetween bool) {
	b.start(0, "d1", "d2").produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).proc("d1", "kill", 160)
	b.take("ai-default", "j-1", "w1", 300, removeBetween)
	b.claim(2, "d2", 400).add("ai-default", "j-2", "j-2", 450).publish(2, 500)
	b.takeover(1, "d2", 2150).add("ai-default", "j-1", "j-1", 2170).publish(1, 2200)
	if removeBetween {
		b.take("ai-default", "j-1", "w2", 2400, true) // the re-created job runs again
	}
	b.take("ai-default", "j-2", "w2", 2500, removeBetween)
}

// badDedupeHorizon: the consumer removed j-1 on completion, so the re-add
// after the crash created it again and it ran twice.
func badDedupeHorizon() history.Run {
	b := newBuilder("dedupe-horizon")
	b.run.Meta.RemoveOnEnd = true
	crashAndReadd(b, true)
	return b.finish(2600, 12000, true)
}

// badNumericIDs: a dispatcher that forgets the jobId gets numeric ids, so
// BullMQ cannot dedupe the re-add: job j-1 exists twice (ids 1 and 3).
func badNumericIDs() history.Run {
	b := newBuilder("crash-window").start(0, "d1", "d2")
	b.run.Meta.Consumer = false
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.claim(1, "d1", 100).addNumeric("ai-default", "j-1", 150).proc("d1", "kill", 160)
	b.claim(2, "d2", 400).addNumeric("ai-default", "j-2", 450).publish(2, 500)
	b.takeover(1, "d2", 2150).addNumeric("ai-default", "j-1", 2170).publish(1, 2200)
	return b.finish(2300, 12000, true)
}

// badProvenWithGaps: both creation sources had gaps, but the duplicate was
// seen anyway: a fail, not unknown.
func badProvenWithGaps() history.Run {
	b := newBuilder("dedupe-horizon")
	crashAndReadd(b, true)
	b.gap("stream:ai-default", 2500, "stream trimmed past the last id read")
	b.gap("keyspace", 2550, "pub/sub connection dropped")
	return b.finish(2600, 12000, true)
}

// badNeverClaimed: event 2 was never claimed although the drain was long.
func badNeverClaimed() history.Run {
	b := newBuilder("baseline").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	return b.finish(400, 12000, true)
}

// badPublishedNoJob: event 1 was marked published with its job queued, but
// no BullMQ job was ever added.
func badPublishedNoJob() history.Run {
	b := newBuilder("baseline").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.claim(1, "d1", 100).publish(1, 200)
	b.claim(2, "d1", 300).add("ai-default", "j-2", "j-2", 350).publish(2, 400)
	return b.finish(500, 12000, true)
}

// badPoisonRetried: an unknown event type is retried with backoff before it
// is failed.
func badPoisonRetried() history.Run {
	b := newBuilder("poison").start(0, "d1")
	b.produce(1, "j-1", history.KindUnknownType, 50)
	b.claim(1, "d1", 100).failTransient(1, 110, "unknown event type ai.job.frobnicate", 500*time.Millisecond)
	b.claim(1, "d1", 700).failPermanent(1, 710, "unknown event type ai.job.frobnicate")
	return b.finish(800, 12000, true)
}

// badStolenClaim: d2 claims event 1 while d1's lease still runs.
func badStolenClaim() history.Run {
	b := newBuilder("contention").start(0, "d1", "d2")
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).takeover(1, "d2", 600).add("ai-default", "j-1", "j-1", 650).publish(1, 700)
	return b.finish(800, 12000, true)
}

// badRewriteFinalized: zombie d1 resumes after d2 published event 1 and
// writes its finalize unguarded over the published row.
func badRewriteFinalized() history.Run {
	b := newBuilder("zombie").start(0, "d1", "d2")
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).proc("d1", "stop", 160)
	b.takeover(1, "d2", 2200).add("ai-default", "j-1", "j-1", 2220).publish(1, 2250)
	b.proc("d1", "cont", 3200).rewrite(1, "d1", 3210, history.StatusPublished)
	return b.finish(3300, 12000, true)
}

// badNoBackoff: event 1 is made available again 10 ms after a failure;
// event 2 is claimed 400 ms before its backoff ends.
func badNoBackoff() history.Run {
	b := newBuilder("redis-outage").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.fault("blackhole", "redis", 90, 250)
	b.claim(1, "d1", 100).claim(2, "d1", 100)
	b.failTransient(1, 200, errRedis, 10*time.Millisecond).failTransient(2, 200, errRedis, 500*time.Millisecond)
	b.claim(1, "d1", 300).claim(2, "d1", 300)
	b.add("ai-default", "j-1", "j-1", 320).add("ai-default", "j-2", "j-2", 330).publish(1, 350).publish(2, 350)
	return b.finish(400, 12000, true)
}

// badRetryForever: max attempts 3, yet event 1 fails transiently four times
// (each with a proper backoff) and is claimed a fifth time.
func badRetryForever() history.Run {
	b := newBuilder("redis-outage").start(0, "d1")
	b.run.Meta.Tuning.MaxAttempts = 3
	b.produce(1, "j-1", history.KindValid, 50)
	b.fault("down", "redis", 90, 8000)
	at := 100
	for n := 1; n <= 4; n++ {
		backoff := expectedBackoff(b.run.Meta.Tuning, n)
		b.claim(1, "d1", at).failTransient(1, at+10, errRedis, backoff)
		at += 10 + int(backoff/time.Millisecond) + 50
	}
	b.claim(1, "d1", at).add("ai-default", "j-1", "j-1", at+20).publish(1, at+30)
	return b.finish(at+100, at+10000, true)
}

// badFailedEarly: a valid event is failed at its first transient error.
func badFailedEarly() history.Run {
	b := newBuilder("redis-outage").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50)
	b.fault("down", "redis", 90, 500)
	b.claim(1, "d1", 100).failPermanent(1, 1100, errRedis)
	return b.finish(1200, 12000, true)
}

// badSlowRecovery: d1 dies holding event 1; d2 runs all along but takes it
// over only 7.9 s after the lease ran out, past the generous bound of 6.1 s.
func badSlowRecovery() history.Run {
	b := newBuilder("lease-expiry").start(0, "d1", "d2")
	b.produce(1, "j-1", history.KindValid, 50)
	b.claim(1, "d1", 100).proc("d1", "kill", 200)
	b.takeover(1, "d2", 10000).add("ai-default", "j-1", "j-1", 10050).publish(1, 10100)
	return b.finish(10200, 20000, true)
}

// badOverwrite: a lost reply on the add makes d1 retry; its second "add"
// overwrites the existing job hash's data.
func badOverwrite() history.Run {
	b := newBuilder("lost-reply-redis").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50)
	b.fault("lost-reply", "redis", 140, 160)
	b.claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150)
	b.failTransient(1, 1150, "redis: reply lost", 500*time.Millisecond)
	b.claim(1, "d1", 1700).overwrite("ai-default", "j-1", `{"jobId":"j-1","retry":2}`, 1750).publish(1, 1800)
	return b.finish(1900, 12000, true)
}

// unknownGaps: both creation sources had gaps and nothing was duplicated:
// I1 cannot tell.
func unknownGaps() history.Run {
	b := newBuilder("redis-restart").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	b.gap("stream:ai-default", 300, "stream trimmed past the last id read")
	b.gap("keyspace", 310, "pub/sub connection dropped")
	b.claim(2, "d1", 400).add("ai-default", "j-2", "j-2", 450).publish(2, 500)
	return b.finish(600, 12000, true)
}

// unknownNotQuiesced: event 1 is backing off when a short drain ends.
func unknownNotQuiesced() history.Run {
	b := newBuilder("redis-outage").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50)
	b.fault("down", "redis", 90, 900)
	b.claim(1, "d1", 100).failTransient(1, 1000, errRedis, 500*time.Millisecond)
	return b.finish(900, 1200, false)
}

// restartGap is a Redis restart (with persistence) that drops the keyspace
// observer's connection from 300 ms until 700 ms, when it scans the job
// hashes. Job j-1 was created before it; event 2's job is added by inside.
func restartGap(b *builder) {
	b.start(0, "d1").produce(1, "j-1", history.KindValid, 50).produce(2, "j-2", history.KindValid, 50)
	b.claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	b.fault("server-restart", "redis", 290, 600).keyspaceDown(300)
}

// readAcrossGap: j-1 is read before the gap and by the scan after it; j-2 is
// created after the observer is back. I9 can judge every job: pass.
func readAcrossGap() history.Run {
	b := newBuilder("redis-restart")
	restartGap(b)
	b.keyspaceBack(700)
	b.claim(2, "d1", 750).add("ai-default", "j-2", "j-2", 800).publish(2, 850)
	b.take("ai-default", "j-1", "w1", 900, true).take("ai-default", "j-2", "w1", 950, false)
	return b.finish(1000, 12000, true)
}

// livedInGap: j-2 is created and removed by the consumer inside the gap;
// only the events stream saw it, and nothing read its hash: I9 is unknown.
func livedInGap() history.Run {
	b := newBuilder("redis-restart")
	b.run.Meta.RemoveOnEnd = true
	restartGap(b)
	b.claim(2, "d1", 620).add("ai-default", "j-2", "j-2", 640).publish(2, 650)
	b.take("ai-default", "j-2", "w1", 660, true)
	b.keyspaceBack(700)
	b.take("ai-default", "j-1", "w1", 900, false)
	return b.finish(1000, 12000, true)
}

// overwriteInGap: a second add of j-1 overwrites its data while the observer
// is disconnected; the scan after the gap reads the new data: I9 fails.
func overwriteInGap() history.Run {
	b := newBuilder("redis-restart")
	restartGap(b)
	b.overwrite("ai-default", "j-1", `{"jobId":"j-1","retry":2}`, 650)
	b.keyspaceBack(700)
	b.claim(2, "d1", 750).add("ai-default", "j-2", "j-2", 800).publish(2, 850)
	return b.finish(1000, 12000, true)
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }
