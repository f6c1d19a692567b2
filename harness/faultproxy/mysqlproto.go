package faultproxy

import (
	"strings"
)

// MySQL client/server protocol facts used here: every packet is a 3-byte
// little-endian payload length, a 1-byte sequence id, then the payload. A
// client command is a packet with sequence id 0 whose first payload byte
// is the command (0x03 COM_QUERY, followed by the SQL text). A payload of
// 0xffffff bytes continues in the next packet.
const (
	mysqlHeaderLen   = 4
	mysqlComQuery    = 0x03
	mysqlMaxPacket   = 0xffffff
	mysqlClientSSL   = 0x0800
	mysqlCompress    = 0x0020
	mysqlCaptureSize = 4096
)

type packetEvent int

const (
	pktNone   packetEvent = iota
	pktStart              // a packet begins (nothing consumed yet)
	pktHeader             // a packet's 4-byte header is complete
	pktEnd                // the packet's payload is complete
)

// packetScanner walks a MySQL packet stream incrementally. It captures the
// first mysqlCaptureSize bytes of each payload and skips the rest.
type packetScanner struct {
	inPacket  bool
	hdr       [mysqlHeaderLen]byte
	hdrN      int
	inPayload bool
	left      int

	length  int
	seq     byte
	payload []byte
	pending []packetEvent
}

// next consumes data up to and including the next event and returns how
// many bytes it consumed and the event (pktNone when data ran out first).
func (s *packetScanner) next(data []byte) (int, packetEvent) {
	if len(s.pending) > 0 {
		ev := s.pending[0]
		s.pending = s.pending[1:]
		return 0, ev
	}
	if !s.inPacket && len(data) > 0 {
		s.inPacket = true
		return 0, pktStart
	}
	i := 0
	for i < len(data) && len(s.pending) == 0 {
		if !s.inPayload {
			k := copy(s.hdr[s.hdrN:], data[i:])
			s.hdrN += k
			i += k
			if s.hdrN == mysqlHeaderLen {
				s.startPayload()
			}
			continue
		}
		k := min(s.left, len(data)-i)
		if room := mysqlCaptureSize - len(s.payload); room > 0 {
			s.payload = append(s.payload, data[i:i+min(k, room)]...)
		}
		s.left -= k
		i += k
		if s.left == 0 {
			s.endPayload()
		}
	}
	if len(s.pending) > 0 {
		ev := s.pending[0]
		s.pending = s.pending[1:]
		return i, ev
	}
	return i, pktNone
}

// more says whether next has anything left to report: bytes, or events
// that happened at the same point as the last one reported.
func (s *packetScanner) more(data []byte) bool { return len(data) > 0 || len(s.pending) > 0 }

func (s *packetScanner) startPayload() {
	s.length = int(s.hdr[0]) | int(s.hdr[1])<<8 | int(s.hdr[2])<<16
	s.seq = s.hdr[3]
	s.hdrN, s.inPayload, s.left = 0, true, s.length
	s.payload = s.payload[:0]
	s.pending = append(s.pending, pktHeader)
	if s.left == 0 {
		s.endPayload()
	}
}

func (s *packetScanner) endPayload() {
	s.inPayload, s.inPacket = false, false
	s.pending = append(s.pending, pktEnd)
}

// mysqlQueryPacket builds a COM_QUERY packet (sequence id 0) for sql.
func mysqlQueryPacket(sql string) []byte {
	n := len(sql) + 1
	p := make([]byte, 0, mysqlHeaderLen+n)
	p = append(p, byte(n), byte(n>>8), byte(n>>16), 0, mysqlComQuery)
	return append(p, sql...)
}

// mysqlMarker is the injected query whose result set carries token in its
// column name and in its one row.
func mysqlMarker(token string) []byte {
	return mysqlQueryPacket("SELECT '" + token + "' AS " + token)
}

// isCommitQuery says whether sql is a COMMIT statement: COMMIT, optionally
// followed by WORK, AND [NO] CHAIN, [NO] RELEASE, in any case, with any
// whitespace, comments (/* */, -- and #) and a trailing semicolon.
func isCommitQuery(sql string) bool {
	words, ok := sqlWords(sql)
	if !ok || len(words) == 0 || !strings.EqualFold(words[0], "COMMIT") {
		return false
	}
	for _, w := range words[1:] {
		switch strings.ToUpper(w) {
		case "WORK", "AND", "NO", "CHAIN", "RELEASE":
		default:
			return false
		}
	}
	return true
}

// sqlWords splits sql into words of letters, digits and underscores,
// skipping whitespace and comments, and allowing only a trailing semicolon.
// ok is false for anything else (strings, operators, a second statement).
func sqlWords(sql string) (words []string, ok bool) {
	end := false
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return nil, false
			}
			i += j + 4
		case c == '#' || isDashComment(sql[i:]):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return words, true
			}
			i += j + 1
		case c == ';':
			end = true
			i++
		case isWordByte(c) && !end:
			j := i
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			words = append(words, sql[i:j])
			i = j
		default:
			return nil, false
		}
	}
	return words, true
}

// isDashComment: "--" starts a comment only when followed by whitespace or
// the end of the text.
func isDashComment(s string) bool {
	if !strings.HasPrefix(s, "--") {
		return false
	}
	return len(s) == 2 || s[2] == ' ' || s[2] == '\t' || s[2] == '\n' || s[2] == '\r'
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
