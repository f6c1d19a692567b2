package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func row(offset int64, txid uint64) message {
	return message{offset: offset, txid: txid, uuid: "m", topic: "q", payload: "{}"}
}

func offsets(ms []message) []int64 {
	var out []int64
	for _, m := range ms {
		out = append(out, m.offset)
	}
	return out
}

// A row whose transaction is not below the snapshot's xmin waits for a
// later snapshot, even with no hole before it.
func TestWalkReadsOnlyBelowTheXmin(t *testing.T) {
	var h horizon
	rd := snapshotRead{xmin: 105, rows: []message{row(1, 100), row(2, 104), row(3, 105), row(4, 101)}}
	passed, uncovered := walk(0, rd, &h, false)
	require.Equal(t, []int64{1, 2}, offsets(passed))
	require.False(t, uncovered)
}

// A hole is passed only once a stamp covers it and the xmin has passed the
// stamp, whatever the rows' own transaction ids say: the naive filter
// (every row read is below the xmin) would pass offset 3 over the hole 2.
func TestWalkHoldsAHoleUntilTheXminPassesItsStamp(t *testing.T) {
	var h horizon
	rd := snapshotRead{xmin: 110, rows: []message{row(1, 100), row(3, 101)}}
	passed, uncovered := walk(0, rd, &h, false)
	require.Equal(t, []int64{1}, offsets(passed))
	require.True(t, uncovered, "no stamp covers the hole yet")

	h.add(3, 120) // taken after the read that saw 3
	passed, uncovered = walk(1, snapshotRead{xmin: 115, rows: rd.rows[1:]}, &h, false)
	require.Empty(t, passed, "transactions up to the stamp may still run")
	require.False(t, uncovered, "covered, waiting")

	passed, _ = walk(1, snapshotRead{xmin: 121, rows: rd.rows[1:]}, &h, false)
	require.Equal(t, []int64{3}, offsets(passed), "every transaction that could hold 2 has ended")
}

// A stamp covers only offsets below the top it was taken for.
func TestStampCoversBelowItsTop(t *testing.T) {
	var h horizon
	h.add(5, 200)
	require.True(t, h.closed(4, 201))
	require.False(t, h.closed(5, 201), "offset 5 was visible, 6 may not have been handed out")
	require.False(t, h.closed(4, 200), "the stamp's own transaction may still run")
	h.add(9, 210)
	h.add(8, 220) // lower top: refused
	require.Len(t, h.stamps, 2)
	require.True(t, h.closed(7, 211))
	h.forget(5) // 5 acked: the first stamp covers nothing more
	require.Equal(t, []stamp{{9, 210}}, h.stamps)
}

func TestTrustsIDPassesEveryRowRead(t *testing.T) {
	var h horizon
	rd := snapshotRead{xmin: 100, rows: []message{row(2, 150), row(7, 151)}}
	passed, uncovered := walk(0, rd, &h, true)
	require.Equal(t, []int64{2, 7}, offsets(passed))
	require.False(t, uncovered)
}

func TestAckedAfter(t *testing.T) {
	passed := []message{row(3, 1), row(5, 1), row(6, 1)}
	require.Equal(t, int64(4), ackedAfter(passed, 1), "5 not taken: the hole before it is passed")
	require.Equal(t, int64(6), ackedAfter(passed, 3))
}
