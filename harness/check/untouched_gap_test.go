package check

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A job created before the gap and deleted during it has no read after it.
func TestJobDeletedInsideTheGapIsUnknown(t *testing.T) {
	b := newBuilder("redis-restart")
	restartGap(b)
	b.take("ai-default", "j-1", "w1", 500, true) // removed while the observer is away
	b.keyspaceBack(700)
	b.claim(2, "d1", 750).add("ai-default", "j-2", "j-2", 800).publish(2, 850)
	r := Check(I9, b.finish(1000, 12000, true))
	require.Equal(t, Unknown, r.Verdict, r.Reason)
	require.Equal(t, "job hash ai-default:j-1 lived through the keyspace gap at 10:00:00.300 with no read after it: an overwrite in that gap may have gone unseen", r.Reason)
}

// A job whose creation the notifications saw after the gap is observed from
// its start, even if it was gone before the observer could read it.
func TestJobCreatedAfterTheGapIsObserved(t *testing.T) {
	b := newBuilder("redis-restart")
	restartGap(b)
	b.keyspaceBack(700)
	b.claim(2, "d1", 750).add("ai-default", "j-2", "j-2", 800).publish(2, 850)
	b.take("ai-default", "j-2", "w1", 810, true)
	run := b.finish(1000, 12000, true)
	for i, n := range run.Keys {
		if n.JobID == "j-2" && n.Event == "new" { // read after the consumer removed it
			run.Keys[i].Data, run.Keys[i].Opts, run.Keys[i].DataJobID = "", "", ""
		}
	}
	r := Check(I9, run)
	require.Equal(t, Pass, r.Verdict, r.Reason)
}

// With no key note after the gap, the window lasts until the final scan: a
// job in the final scan was read after it, one deleted meanwhile was not.
func TestGapWithNothingAfterItLastsToTheEnd(t *testing.T) {
	b := newBuilder("redis-restart")
	restartGap(b)
	r := Check(I9, b.finish(1000, 12000, true))
	require.Equal(t, Pass, r.Verdict, "j-1 is in the final scan: %s", r.Reason)

	b = newBuilder("redis-restart")
	restartGap(b)
	b.claim(2, "d1", 750).add("ai-default", "j-2", "j-2", 800).publish(2, 850)
	b.take("ai-default", "j-2", "w1", 900, true)
	r = Check(I9, b.finish(1000, 12000, true))
	require.Equal(t, Unknown, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "job hash ai-default:j-2 lived through the keyspace gap")
}

// A job created inside the gap is compared from the scan that first read it.
func TestScanNoteIsABaseline(t *testing.T) {
	b := newBuilder("redis-restart")
	restartGap(b)
	b.claim(2, "d1", 620).add("ai-default", "j-2", "j-2", 640).publish(2, 650)
	b.keyspaceBack(700)
	b.overwrite("ai-default", "j-2", `{"jobId":"j-2","again":true}`, 800)
	r := Check(I9, b.finish(1000, 12000, true))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "when first read at 10:00:00.700")
}
