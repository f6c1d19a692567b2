package main

// message is one row of the log, as a read at one snapshot saw it.
type message struct {
	offset  int64
	txid    uint64 // the writing transaction's id (xid8)
	uuid    string
	topic   string
	payload string
}

// snapshotRead is one read of the log: the messages after the group's
// offset, in offset order, and the xmin of the snapshot they were read at
// (every transaction below it has ended; pg_snapshot_xmin).
type snapshotRead struct {
	xmin uint64
	rows []message
}

// top is the highest offset the read saw, or 0.
func (rd snapshotRead) top() int64 {
	if len(rd.rows) == 0 {
		return 0
	}
	return rd.rows[len(rd.rows)-1].offset
}

// stamp says: offset top was visible at a snapshot, and xid was handed out
// after that snapshot. Every offset below top was handed out before top
// was, to a transaction that already had its id (schema.sql puts txid
// before msg_offset), so every transaction that may still commit an offset
// below top has an id below xid.
type stamp struct {
	top int64
	xid uint64
}

// maxStamps bounds a horizon's memory; a stamp refused for room is taken
// again by a later round, with a later xid.
const maxStamps = 256

// horizon remembers stamps, ascending in top and in xid, and tells when a
// hole in the log is closed for good.
type horizon struct {
	stamps []stamp
}

// closed tells whether every offset up to hi that a read at a snapshot with
// this xmin did not see can never appear: some stamp covers hi (its top is
// above hi) and every transaction up to its xid has ended (xmin > xid). A
// transaction that ended without its row being visible rolled back.
func (h *horizon) closed(hi int64, xmin uint64) bool {
	for _, s := range h.stamps {
		if s.top > hi {
			return xmin > s.xid
		}
	}
	return false
}

// covers tells whether some stamp already covers offset hi.
func (h *horizon) covers(hi int64) bool {
	return len(h.stamps) > 0 && h.stamps[len(h.stamps)-1].top > hi
}

// add records a stamp taken after a read whose highest offset was top.
func (h *horizon) add(top int64, xid uint64) {
	if n := len(h.stamps); n == maxStamps || n > 0 && (h.stamps[n-1].top >= top || h.stamps[n-1].xid >= xid) {
		return
	}
	h.stamps = append(h.stamps, stamp{top: top, xid: xid})
}

// forget drops the stamps that cover nothing past acked.
func (h *horizon) forget(acked int64) {
	i := 0
	for i < len(h.stamps) && h.stamps[i].top <= acked+1 {
		i++
	}
	h.stamps = h.stamps[i:]
}

// walk returns the messages of rd the cursor may pass now, in offset
// order, and whether it stopped at a hole no stamp covers yet (the round
// then takes a stamp). It passes a row only when its transaction is below
// the snapshot's xmin, and a hole (offsets no row holds) only when the
// horizon has closed it. The trusts-id plant passes every row it read.
func walk(acked int64, rd snapshotRead, h *horizon, trustsID bool) (passed []message, uncovered bool) {
	if trustsID {
		return rd.rows, false
	}
	next := acked + 1
	for i, m := range rd.rows {
		if m.offset > next && !h.closed(m.offset-1, rd.xmin) {
			return rd.rows[:i], !h.covers(m.offset - 1)
		}
		if m.txid >= rd.xmin {
			return rd.rows[:i], false
		}
		next = m.offset + 1
	}
	return rd.rows, false
}
