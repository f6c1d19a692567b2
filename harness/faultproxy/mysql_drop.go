package faultproxy

// mysqlDropKind is the downstream half of lost-reply-mysql-commit.
type mysqlDropKind struct{}

func (mysqlDropKind) registry() *registry[lostReply] { return lostReplies }
func (mysqlDropKind) filter(s *lostReply) filter {
	return &mysqlDrop{lr: s}
}

// mysqlDrop watches the server's packets for the marker query's result
// set: a column-count packet (sequence id 1, payload 0x01, which MariaDB
// follows with a metadata-follows byte) followed by a
// packet carrying a pending token (the column definition, or the row when
// metadata is skipped). From that result set on it drops everything: the
// marker's rows and the COMMIT's OK. It holds only a column-count packet of
// 1 and the packet after it, both of which the server is bound to finish.
type mysqlDrop struct {
	lr    *lostReply
	sc    packetScanner
	stage int // 0: passing; 1: holding a column count; 2: holding the next packet
	dead  bool
	hold
	quiet
}

func (d *mysqlDrop) process(data []byte) []byte { return scanChunk(&d.hold, &d.sc, d, data) }

func (d *mysqlDrop) mode() scanMode {
	if d.dead {
		return scanDrop
	}
	return scanOn
}

func (d *mysqlDrop) release() {
	d.hold.release()
	d.stage = 0
}

func (d *mysqlDrop) on(ev packetEvent) {
	switch {
	case ev == pktStart && d.stage == 0:
		if d.lr.hasPending() {
			d.holding, d.stage = true, 1
		}
	case ev == pktHeader && d.stage == 1:
		if d.sc.seq != 1 || d.sc.length < 1 || d.sc.length > 2 {
			d.release()
		}
	case ev == pktHeader && d.stage == 2:
		if d.sc.length > mysqlCaptureSize {
			d.release()
		}
	case ev == pktEnd && d.stage == 1:
		if d.sc.payload[0] == 0x01 {
			d.stage = 2
		} else {
			d.release()
		}
	case ev == pktEnd && d.stage == 2:
		if c := d.lr.claimIn(d.sc.payload); c != nil {
			d.lr.settle(c, true)
			d.discard()
			d.dead = true
			return
		}
		d.release()
	}
}

func (d *mysqlDrop) flush() ([]byte, bool) {
	if d.dead {
		return nil, false
	}
	d.stage = 0
	return d.flushHeld()
}
