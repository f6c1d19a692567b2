package faultproxy

// hold is the buffer every protocol-aware filter shares: the bytes of one
// chunk go out at once (out), except while the filter holds back a message
// it may still rewrite, replace or drop (held). Only the toxic's Pipe
// goroutine touches it.
type hold struct {
	holding bool
	held    []byte
	out     []byte
}

// take holds b while holding, else forwards it.
func (h *hold) take(b []byte) {
	if h.holding {
		h.held = append(h.held, b...)
	} else {
		h.out = append(h.out, b...)
	}
}

// emit forwards b now, ahead of anything still held.
func (h *hold) emit(b []byte) { h.out = append(h.out, b...) }

// release forwards what is held and stops holding.
func (h *hold) release() {
	h.out = append(h.out, h.held...)
	h.discard()
}

// discard drops what is held and stops holding.
func (h *hold) discard() { h.held, h.holding = nil, false }

// flushHeld hands over what is held, for a filter's flush.
func (h *hold) flushHeld() ([]byte, bool) {
	held := h.held
	h.discard()
	return held, true
}

// quiet is the signal and wake of a filter that acts only on input.
type quiet struct{}

func (quiet) signal() <-chan struct{} { return nil }
func (quiet) wake() []byte            { return nil }

// scanMode says what a filter does with the rest of a chunk.
type scanMode int

const (
	scanOn   scanMode = iota // read the next message piece
	scanPass                 // release what is held and pass the rest unexamined
	scanDrop                 // drop the rest: the connection's reply was lost
	scanHold                 // hold the rest: the filter parked the stream
)

// protoScanner is a protocol's incremental scanner (packetScanner,
// respScanner): next consumes one piece of data and says what it ended.
type protoScanner[E any] interface {
	more(data []byte) bool
	next(data []byte) (int, E)
}

// holdFilter is what scanChunk asks of a filter.
type holdFilter[E any] interface {
	mode() scanMode
	take(b []byte)
	release()
	on(ev E)
}

// scanChunk is the loop of every protocol-aware filter: piece by piece, the
// filter takes what the scanner read (held or forwarded) and then handles
// the event it ended; before each piece the filter's mode may end the loop.
// It returns the bytes to forward now, which it collects in h.out.
func scanChunk[E any](h *hold, sc protoScanner[E], f holdFilter[E], data []byte) []byte {
	h.out = nil
	for sc.more(data) {
		switch f.mode() {
		case scanPass:
			f.release()
			h.emit(data)
			return h.out
		case scanDrop:
			return h.out
		case scanHold:
			h.held = append(h.held, data...)
			return h.out
		}
		n, ev := sc.next(data)
		f.take(data[:n])
		data = data[n:]
		f.on(ev)
	}
	return h.out
}
