package check

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// restoreFrom is Redis restarted from a file written at from: every job
// hash added since is gone, with its place in the lists.
func (b *builder) restoreFrom(from int) *builder {
	for _, qs := range b.queues {
		for id, h := range qs.hashes {
			if stamp, _ := strconv.ParseInt(h.Timestamp, 10, 64); stamp >= ms(from).UnixMilli() {
				delete(qs.hashes, id)
				for name, list := range qs.lists {
					var kept []string
					for _, x := range list {
						if x != id {
							kept = append(kept, x)
						}
					}
					qs.lists[name] = kept
				}
			}
		}
	}
	return b
}

// lossRun: jobs 1 to 3 are added and published; Redis stops persisting at
// 1000, is killed at 2000 and back at 2300, inside a quiet restart
// (1800-2600) in whose observation gaps nothing was hidden. Job 1 was added
// before the window and survives; jobs 2 and 3 were added inside it and
// are gone. unpersisted false leaves out the harness's window: the same
// loss with nothing to say it was Redis's.
func lossRun(unpersisted bool, again func(b *builder)) history.Run {
	b := newBuilder("redis-loses-adds").start(0, "d1")
	for i, at := range []int{500, 1200, 1400} {
		id := int64(i + 1)
		job := "job-" + itoa(id)
		b.produce(id, job, history.KindValid, at-100)
		b.claim(id, "d1", at-50).add("ai-default", job, job, at).publish(id, at+20)
	}
	if unpersisted {
		b.fault(history.FaultRedisUnpersisted, "redis", 1000, 2000)
	}
	b.fault("down", "redis", 1600, 2700)
	b.fault(history.FaultQuietRestart, "redis", 1800, 2600)
	b.fault("server-restart", "redis", 2000, 2300)
	b.keyspaceDown(1900)
	b.restoreFrom(1000)
	b.gap("stream:ai-default", 2400, "stream bull:ai-default:events went back: it was recreated; entries may be lost")
	b.keyspaceBack(2450)
	if again != nil {
		again(b)
	}
	return b.finish(3000, 4000, true)
}

func TestRedisLostAddsAreTheEnvironmentsNotTheDispatchers(t *testing.T) {
	run := lossRun(true, nil)
	lost := LostAdds(run)
	require.Len(t, lost, 2)
	require.Equal(t, "job-2", lost[0].Job)
	require.Equal(t, "job-3", lost[1].Job)
	require.True(t, lost[0].Published)
	require.Equal(t, []int64{2}, lost[0].Events)
	require.Equal(t, ms(2300), lost[0].Restarted)
	require.Contains(t, lost[0].String(), "event 2 is published")

	for _, id := range []ID{I1, I2, I3, I4, I9} {
		r := Check(id, run)
		require.NotEqual(t, Fail, r.Verdict, "%s: %s", id, r.Reason)
		require.NotEqual(t, Unknown, r.Verdict, "%s: gaps inside the quiet restart hid nothing: %s", id, r.Reason)
	}
	require.Contains(t, Check(I3, run).Reason, "2 of them then lost by Redis")
	l := require1(t, run, history.Requirement{Fault: history.LandLostAdds, AtLeast: 2})
	require.True(t, l.Met, l.Reason)
}

// A job created again after Redis lost it is one job: the creation Redis
// lost does not count. Without the harness's window the same history is
// two creations of one job, proven.
func TestAJobCreatedAgainAfterRedisLostItIsNoDuplicate(t *testing.T) {
	readd := func(b *builder) { b.add("ai-default", "job-2", "job-2", 2800) }
	run := lossRun(true, readd)
	require.Equal(t, Pass, Check(I1, run).Verdict, Check(I1, run).Reason)
	lost := LostAdds(run)
	require.Len(t, lost, 2)
	require.Equal(t, ms(2800), lost[0].Recreated)

	bare := lossRun(false, readd)
	require.Empty(t, LostAdds(bare))
	r := Check(I1, bare)
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "job-2")
}

// A gap outside the quiet restart still hides what it hides, and a job
// that vanished though it was added before Redis stopped persisting is not
// Redis's loss.
func TestOnlyTheQuietRestartExplainsGapsAndOnlyTheWindowExplainsLosses(t *testing.T) {
	run := lossRun(true, func(b *builder) {
		b.gap("stream:ai-default", 2900, "stream bull:ai-default:events was trimmed past the reader")
		b.keyspaceDown(2950)
	})
	require.Equal(t, Unknown, Check(I1, run).Verdict, "both creation sources had a gap outside the window")

	run = lossRun(true, nil)
	run.Faults[0].Start = ms(1300) // the window opens after job 2's add: job 2 was on disk
	lost := LostAdds(run)
	require.Len(t, lost, 1)
	require.Equal(t, "job-3", lost[0].Job)
}

// The same entry read twice (a reader re-reading a stream its server
// restored from an older file) is one entry.
func TestAStreamEntryReadTwiceIsOneCreation(t *testing.T) {
	b := newBuilder("redis-loses-adds").start(0, "d1")
	b.produce(1, "job-1", history.KindValid, 0)
	b.claim(1, "d1", 50).add("ai-default", "job-1", "job-1", 100).publish(1, 120)
	b.run.Stream = append(b.run.Stream, b.run.Stream...)
	run := b.finish(1000, 2000, true)
	require.Equal(t, Pass, Check(I1, run).Verdict, Check(I1, run).Reason)
	require.Len(t, newIndex(run).creations.byJob["job-1"], 1)
}

// The recorded runs: the reference (BullMQ) and go-timestamps (a Redis
// stream), Redis losing what it acknowledged while its append-only file was
// off. Their lost adds are Redis's, every one an acknowledged add of a
// published event. Without the harness's two windows the same history is
// judged as any restart that lost data: the gaps make I1 (and I9, where
// there are job hashes) doubt, and nothing is attributed to Redis.
func TestRecordedRedisLossIsRedisesOnlyWithinItsWindows(t *testing.T) {
	for name, blind := range map[string][]ID{
		"recorded-reference-redis-loses-adds":     {I1, I9},
		"recorded-go-timestamps-redis-loses-adds": {I1}, // a stream: no job hashes, I9 not applicable
	} {
		t.Run(name, func(t *testing.T) {
			run := loadStored(t, name)
			lost := LostAdds(run)
			require.NotEmpty(t, lost)
			for _, l := range lost {
				require.True(t, l.Acknowledged && l.Published, "%s", l)
			}

			var faults []history.Fault
			for _, f := range run.Faults {
				if f.Kind != history.FaultRedisUnpersisted && f.Kind != history.FaultQuietRestart {
					faults = append(faults, f)
				}
			}
			run.Faults = faults
			require.Empty(t, LostAdds(run))
			for _, id := range blind {
				require.Equal(t, Unknown, Check(id, run).Verdict, "%s: %s", id, Check(id, run).Reason)
			}
		})
	}
}

// A stream sink's entry appended inside the window is Redis's loss when
// the first gap of its stream after the kill says the stream no longer
// holds it (its id is past the last id kept). A gap before the kill, or
// one that says nothing of what was kept, proves no loss. A list's move
// inside the window survived only if the restore handed the message out
// again (TestAListElementPutBackIsOneMessage).
func TestAStreamSinkEntryIsLostPastWhatItsStreamKept(t *testing.T) {
	w := unpersistedRestart{from: ms(1000), killed: ms(2000), back: ms(2300)}
	ix := &index{run: history.Run{Gaps: []history.Gap{
		{Source: "sink:orders", At: ms(1500), Kept: "1-0"}, // before the kill: not this restart's
		{Source: "sink:orders", At: ms(2350), Detail: "restarted"},
		{Source: "sink:orders", At: ms(2400), Detail: "went back", Kept: fmt.Sprintf("%d-0", ms(1200).UnixMilli())},
		{Source: "sink:jobs-list", At: ms(2450), Detail: "Redis lost data", Kept: "7"},
	}}}
	stream := func(at int) history.Append {
		return history.Append{Sink: history.SinkStream, Key: "orders", ID: fmt.Sprintf("%d-0", ms(at).UnixMilli()), At: ms(at)}
	}
	require.True(t, ix.appendSurvived(stream(1100), w))
	require.True(t, ix.appendSurvived(stream(1200), w), "the last id kept")
	require.False(t, ix.appendSurvived(stream(1300), w))
	other := history.Append{Sink: history.SinkStream, Key: "elsewhere", ID: "99-0", At: ms(1500)}
	require.True(t, ix.appendSurvived(other, w), "a stream with no loss reported lost nothing")
	list := history.Append{Sink: history.SinkList, Key: "jobs-list", ID: "8", MessageID: "m8", At: ms(1500)}
	require.False(t, ix.appendSurvived(list, w), "a list's move no restore handed out again")
	ix.rereads = []history.Append{{Sink: history.SinkList, Key: "jobs-list", ID: "9", MessageID: "m8", At: ms(2400)}}
	require.True(t, ix.appendSurvived(list, w), "moved again after the restart: it was put back")
}

// A list element moved inside the unpersisted window comes back when Redis
// restores the list from before the move, and the mover, draining inside
// the quiet restart (no instance can push then), moves it again: that is
// the same message, not a second one (I1), and it survived. An element
// pushed and moved inside the window, never seen again, is a lost add.
// Outside a quiet restart two moves of one message stay two.
func TestAListElementPutBackIsOneMessage(t *testing.T) {
	move := func(id, msg string, at int) history.Append {
		return history.Append{Sink: history.SinkList, Key: "jobs", ID: id, MessageID: msg, DataJobID: msg, At: ms(at)}
	}
	run := history.Run{
		Faults: []history.Fault{
			{Kind: history.FaultRedisUnpersisted, Target: "redis", Start: ms(1000), End: ms(2000)},
			{Kind: history.FaultQuietRestart, Target: "redis", Start: ms(1800), End: ms(2600)},
			{Kind: "server-restart", Target: "redis", Start: ms(2000), End: ms(2300)},
		},
		Appends: []history.Append{
			move("1", "m1", 500),  // pushed and moved before the window: kept in the archive
			move("2", "m2", 1200), // pushed before the window, moved inside it: put back
			move("3", "m3", 1400), // pushed and moved inside the window: gone
			move("4", "m2", 2400), // the restore's m2, moved again in the quiet restart
			move("5", "m9", 2450), // pushed before the cut, first moved now: a new message
		},
	}
	kept, rereads := splitRereads(run, run.Appends)
	require.Equal(t, []history.Append{run.Appends[3]}, rereads)
	require.Len(t, kept, 4)
	ix := &index{run: run, rereads: rereads}
	w := unpersistedRestarts(run)[0]
	require.True(t, ix.appendSurvived(run.Appends[1], w))
	require.False(t, ix.appendSurvived(run.Appends[2], w))

	run.Faults = run.Faults[:1]
	kept, rereads = splitRereads(run, run.Appends)
	require.Empty(t, rereads, "no quiet restart: a second move is a second message")
	require.Len(t, kept, 5)
}

// A stream sink's entry read twice is one message; two list moves of the
// same message are two appends.
func TestUniqueAppendsOnlyMergesStreamEntries(t *testing.T) {
	s := history.Append{Sink: history.SinkStream, Key: "orders", ID: "5-0", MessageID: "m"}
	l := history.Append{Sink: history.SinkList, Key: "jobs-list", ID: "3", MessageID: "m"}
	require.Equal(t, []history.Append{s, l, l}, uniqueAppends([]history.Append{s, s, l, l}))
}

// A dispatcher that declares durability: wait has no excuse: the published
// events whose jobs Redis lost fail I3, each named; a job added again
// after the restart is kept.
func TestDurabilityWaitMakesALostPublishedJobTheDispatchers(t *testing.T) {
	run := lossRun(true, func(b *builder) { b.add("ai-default", "job-2", "job-2", 2800) })
	run.Meta.Durability = "wait"
	r := Check(I3, run)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Len(t, r.Violations, 1, "job-2 was added again")
	v := r.Violations[0]
	require.Equal(t, int64(3), v.EventID)
	require.Contains(t, v.Summary, "durability: wait")
	require.Contains(t, v.Summary, "job-3")

	undeclared := lossRun(true, nil)
	require.Equal(t, Pass, Check(I3, undeclared).Verdict, "without the promise the loss is Redis's")
}
