package faultproxy

import (
	"bytes"
	"strconv"
)

// respEvent is what a respScanner reports while it walks a byte stream.
type respEvent int

const (
	respNone   respEvent = iota
	respStart            // a top-level value begins (nothing consumed yet)
	respHeader           // the top-level value's header line is complete
	respName             // a request's command name is complete
	respEnd              // the top-level value is complete
)

const (
	respMaxLine    = 1024 // longest header line kept (inline commands may be longer)
	respMaxCapture = 128  // longest bulk string captured (names, markers)
)

// respScanner walks a RESP2/RESP3 stream incrementally, one top-level value
// after another, without holding the stream: it keeps only the current
// header line, a stack of elements left in open aggregates, and small
// captures. In request mode a value that does not start with '*' is an
// inline command (one line, the name is its first word), as Redis reads it.
// Anything it cannot parse (streamed aggregates, bad lengths) marks it
// broken; its user then passes bytes through untouched.
type respScanner struct {
	requests bool
	broken   bool

	inValue   bool
	hasHeader bool
	inBody    bool
	body      int // bulk bytes left, including the closing CRLF
	line      []byte
	lineLong  bool
	stack     []int

	capturing bool
	nameElem  bool
	capture   []byte

	// keepArgs (requests only) keeps the first respMaxCapture bytes of
	// every element of a request array in args, in order: a filter that
	// judges a command by its keys reads them there once it ends.
	keepArgs   bool
	argElem    bool
	argCapture []byte
	args       [][]byte

	// About the current (or last) top-level value.
	topType  byte
	topLine  []byte // header line after the type byte
	topLen   int    // bulk length of a top-level bulk string
	topCount int    // element count of a top-level array
	topBulk  []byte // content of a small top-level bulk string
	name     []byte // command name of a request

	pending []respEvent
}

func newRESPScanner(requests bool) *respScanner {
	return &respScanner{requests: requests}
}

// next consumes data up to and including the next event and returns how
// many bytes it consumed and the event (respNone when data ran out first).
func (s *respScanner) next(data []byte) (int, respEvent) {
	if ev, ok := s.popEvent(); ok {
		return 0, ev
	}
	if s.broken {
		return len(data), respNone
	}
	if len(data) == 0 {
		return 0, respNone
	}
	if !s.inValue {
		s.beginValue()
		return 0, respStart
	}
	i := 0
	for i < len(data) && len(s.pending) == 0 && !s.broken {
		if s.inBody {
			i += s.consumeBody(data[i:])
			continue
		}
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			s.addLine(data[i:])
			i = len(data)
			break
		}
		s.addLine(data[i : i+j+1])
		i += j + 1
		s.lineDone()
	}
	if ev, ok := s.popEvent(); ok {
		return i, ev
	}
	return i, respNone
}

// more says whether next has anything left to report: bytes, or events
// that happened at the same point as the last one reported.
func (s *respScanner) more(data []byte) bool { return len(data) > 0 || len(s.pending) > 0 }

func (s *respScanner) popEvent() (respEvent, bool) {
	if len(s.pending) == 0 {
		return respNone, false
	}
	ev := s.pending[0]
	s.pending = s.pending[1:]
	return ev, true
}

func (s *respScanner) beginValue() {
	s.inValue, s.hasHeader = true, false
	s.stack = s.stack[:0]
	s.topType, s.topLine, s.topLen, s.topCount = 0, nil, -1, 0
	s.topBulk, s.name = nil, nil
	s.args = nil
}

func (s *respScanner) addLine(b []byte) {
	room := respMaxLine - len(s.line)
	if len(b) > room {
		s.lineLong = true
		b = b[:max(room, 0)]
	}
	s.line = append(s.line, b...)
}

func (s *respScanner) consumeBody(b []byte) int {
	k := min(s.body, len(b))
	data := min(k, max(s.body-2, 0)) // the closing CRLF is not content
	if s.capturing {
		s.capture = append(s.capture, b[:data]...)
	}
	if s.argElem {
		room := max(respMaxCapture-len(s.argCapture), 0)
		s.argCapture = append(s.argCapture, b[:min(data, room)]...)
	}
	s.body -= k
	if s.body == 0 {
		s.inBody = false
		s.elementDone()
	}
	return k
}

// lineDone handles one complete line: a header, or an inline command.
func (s *respScanner) lineDone() {
	line := bytes.TrimRight(s.line, "\r\n")
	long := s.lineLong
	s.line, s.lineLong = s.line[:0], false
	top := len(s.stack) == 0 && !s.hasHeader
	if top && s.requests && (len(line) == 0 || line[0] != '*') {
		s.inline(line)
		return
	}
	if len(line) == 0 || long {
		s.broken = true
		return
	}
	if top {
		s.hasHeader = true
		s.topType, s.topLine = line[0], append([]byte(nil), line[1:]...)
		s.pending = append(s.pending, respHeader)
	}
	s.header(line[0], line[1:], top)
}

// inline handles a request written as a plain line ("PING\r\n").
func (s *respScanner) inline(line []byte) {
	if f := bytes.Fields(line); len(f) > 0 {
		s.name = append([]byte(nil), f[0]...)
		if s.keepArgs {
			for _, a := range f {
				s.args = append(s.args, append([]byte(nil), a[:min(len(a), respMaxCapture)]...))
			}
		}
		s.pending = append(s.pending, respName)
	}
	s.inValue = false
	s.pending = append(s.pending, respEnd)
}

func (s *respScanner) header(typ byte, rest []byte, top bool) {
	switch typ {
	case '+', '-', ':', ',', '(', '#', '_':
		s.elementDone()
		return
	}
	n, err := strconv.Atoi(string(rest))
	if err != nil {
		s.broken = true // includes streamed types ("$?", "*?")
		return
	}
	switch typ {
	case '$', '!', '=':
		s.bulkHeader(n, top)
	case '*', '~', '>':
		if top {
			s.topCount = n
		}
		s.aggregate(n)
	case '%':
		s.aggregate(2 * n)
	case '|':
		s.aggregate(2*n + 1) // an attribute map, then the value it annotates
	default:
		s.broken = true
	}
}

func (s *respScanner) bulkHeader(n int, top bool) {
	if n < 0 {
		s.elementDone() // null bulk
		return
	}
	first := s.requests && len(s.stack) == 1 && s.topType == '*' && s.stack[0] == s.topCount
	if top {
		s.topLen = n
	}
	s.nameElem = first
	s.capturing = (top || first) && n <= respMaxCapture
	s.capture = s.capture[:0]
	s.argElem = s.keepArgs && s.requests && len(s.stack) == 1 && s.topType == '*'
	s.argCapture = s.argCapture[:0]
	s.inBody, s.body = true, n+2
}

func (s *respScanner) aggregate(n int) {
	if n <= 0 {
		s.elementDone() // empty or null aggregate
		return
	}
	s.stack = append(s.stack, n)
}

// elementDone counts one complete element against the open aggregates,
// closing those that are full; when none is left the top-level value ends.
func (s *respScanner) elementDone() {
	if s.nameElem {
		s.name = append([]byte(nil), s.capture...)
		s.pending = append(s.pending, respName)
	}
	if s.capturing && len(s.stack) == 0 {
		s.topBulk = append([]byte(nil), s.capture...)
	}
	if s.argElem {
		s.args = append(s.args, append([]byte(nil), s.argCapture...))
	}
	s.nameElem, s.capturing, s.argElem = false, false, false
	for len(s.stack) > 0 {
		s.stack[len(s.stack)-1]--
		if s.stack[len(s.stack)-1] > 0 {
			return
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
	s.inValue = false
	s.pending = append(s.pending, respEnd)
}
