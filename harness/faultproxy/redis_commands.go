package faultproxy

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
)

const (
	redisCommandsToxicType = "outboxchaos_redis_commands"
	redisRepliesToxicType  = "outboxchaos_redis_replies"

	// commandScanLimit bounds the bytes of one command searched for job
	// ids; an id past it is not seen.
	commandScanLimit = 64 << 10
	// maxCommandRecords bounds what a server records; past it records are
	// counted as lost (CommandsLost) and the history must say so.
	maxCommandRecords = 200000
	// replyTextLimit bounds an error reply's text kept in a record.
	replyTextLimit = 160
)

// Outcomes of a recorded command (doc.go, "Redis: the command log").
const (
	OutcomeAnswered = "answered" // Redis answered, not with an error
	OutcomeError    = "error"    // an error reply (Redis's own, or a fault's)
	OutcomeDropped  = "dropped"  // a lost-reply fault dropped the reply
	OutcomeClosed   = "closed"   // the connection ended before the reply
	OutcomeUnread   = "unread"   // the proxy could not read the replies
)

// Command is one request a client sent through a Redis link, as the
// link's command log saw it: every command that names a job of the run (a
// read too), and every other command that failed (an error reply to a
// write, a reply dropped, a connection closed before the reply).
type Command struct {
	Link    string    // the link's name ("redis/d1")
	Name    string    // the command's name, upper case (EVALSHA, XADD, LPUSH, EXEC)
	Jobs    []string  // the job ids of the run it names, in order of appearance
	Write   bool      // a script or a write command
	Sent    time.Time // when the proxy had read the whole request
	Outcome string    // one of the Outcome constants
	Reply   string    // an error reply's text (cut)
	Replied time.Time // when the proxy read the reply, or saw it would not come
}

// CommandLog is what a Server records of its Redis links' commands.
type CommandLog struct {
	// Needle starts every job id of the run ("j-<run>-"): an id is the
	// needle and the digits after it.
	Needle string
	// Record receives each record once its outcome is known; it must not
	// block.
	Record func(Command)
}

// commandLogState is a server's command log: its settings once RecordCommands
// was called, and how many records it kept and lost.
type commandLogState struct {
	log  atomic.Pointer[CommandLog]
	kept atomic.Int64
	lost atomic.Int64
}

// RecordCommands starts recording the commands of every Redis link (a link
// whose dependency is "redis"), on connections open already too.
func (s *Server) RecordCommands(l CommandLog) error {
	if l.Needle == "" {
		return errors.New("record commands: the needle is empty: pass the start of the run's job ids")
	}
	if l.Record == nil {
		return errors.New("record commands: Record is nil: pass the function that stores a command")
	}
	s.commands.log.Store(&l)
	return nil
}

// CommandsLost says how many records the server could not keep (past its
// bound); a history with lost records cannot rest on them.
func (s *Server) CommandsLost() int64 { return s.commands.lost.Load() }

func (c *commandLogState) record(cmd Command) {
	l := c.log.Load()
	if l == nil {
		return
	}
	if c.kept.Add(1) > maxCommandRecords {
		c.lost.Add(1)
		return
	}
	l.Record(cmd)
}

func (c *commandLogState) needle() []byte {
	if l := c.log.Load(); l != nil {
		return []byte(l.Needle)
	}
	return nil
}

// isRedisLink says whether a link leads to Redis (its dependency, the name
// up to the first '/', is "redis").
func isRedisLink(name string) bool {
	dep, _, _ := strings.Cut(name, "/")
	return dep == "redis"
}

// redisLinkLog is one Redis link's share of the command log. toxiproxy
// starts a connection's upstream link, then its downstream link, one
// connection after another from one goroutine, calling NewState of each
// toxic in turn; the two toxics of the log pair up through connPair, so both
// directions of a connection share one redisConn.
type redisLinkLog struct {
	link string
	log  *commandLogState
	pair connPair[redisConn]
}

var redisLinkLogs = &registry[redisLinkLog]{prefix: "redis-commands-"}

// followCommands registers a Redis link's log and adds its two toxics,
// before the link accepts a connection (so they are first in each
// direction's chain); it returns the registry key.
func followCommands(tp *toxiproxy.Proxy, name string, log *commandLogState) (string, error) {
	key := redisLinkLogs.register(&redisLinkLog{link: name, log: log})
	return addLogPair(tp, redisLinkLogs, key, logToxic{"redis-commands", redisCommandsToxicType}, logToxic{"redis-replies", redisRepliesToxicType})
}

// connPair hands a connection's log state from a link log's upstream
// toxic, which makes it when the connection opens, to its downstream toxic,
// made next for the same connection.
type connPair[C any] struct {
	mu   sync.Mutex
	next *C
}

func (p *connPair[C]) offer(c *C) {
	p.mu.Lock()
	p.next = c
	p.mu.Unlock()
}

// take returns the state offered last, once (nil when none is waiting).
func (p *connPair[C]) take() *C {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.next
	p.next = nil
	return c
}

// logToxic names one toxic of a link log's pair: its name and its type.
type logToxic struct{ name, typ string }

// addLogPair adds a link log's two toxics, up (upstream) then down
// (downstream), both bound to the log registered in reg under key; when
// either cannot be added it unregisters key. It returns key.
func addLogPair[S any](tp *toxiproxy.Proxy, reg *registry[S], key string, up, down logToxic) (string, error) {
	attrs := map[string]string{"fault": key}
	for _, spec := range []toxicSpec{
		{Name: up.name, Type: up.typ, Stream: Upstream.stream(), Attributes: attrs},
		{Name: down.name, Type: down.typ, Stream: Downstream.stream(), Attributes: attrs},
	} {
		if err := addToxic(tp, spec); err != nil {
			reg.unregister(key)
			return "", err
		}
	}
	return key, nil
}

// redisCommandsKind is the upstream half of the command log.
type redisCommandsKind struct{}

func (redisCommandsKind) registry() *registry[redisLinkLog] { return redisLinkLogs }
func (redisCommandsKind) filter(s *redisLinkLog) filter {
	c := &redisConn{link: s}
	s.pair.offer(c)
	return &redisCommandScan{conn: c, sc: newRESPScanner(true)}
}

// redisRepliesKind is the downstream half of the command log.
type redisRepliesKind struct{}

func (redisRepliesKind) registry() *registry[redisLinkLog] { return redisLinkLogs }
func (redisRepliesKind) filter(s *redisLinkLog) filter {
	c := s.pair.take()
	if c == nil {
		return passFilter{}
	}
	return &redisReplyScan{conn: c, sc: newRESPScanner(false)}
}

// pendingCmd is a request whose reply has not been read yet.
type pendingCmd struct {
	cmd    Command
	queued []*pendingCmd // EXEC: the commands its transaction queued
	inTxn  bool          // queued inside MULTI: EXEC's reply settles it
}

// redisConn is one connection's requests awaiting their replies, in the
// order Redis answers them.
type redisConn struct {
	link *redisLinkLog

	mu      sync.Mutex
	waiting []*pendingCmd
	txn     []*pendingCmd // commands queued since MULTI
	inMulti bool
	judging bool // a lost-reply marker went by: the next reply decides
	lost    bool // every later reply is dropped by the fault
	broken  bool // the stream cannot be paired any more
	ended   bool
}

// sent queues a complete request.
func (c *redisConn) sent(p *pendingCmd) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	if c.broken {
		c.settle(p, OutcomeUnread, "", p.cmd.Sent)
		return
	}
	switch p.cmd.Name {
	case "MULTI":
		c.inMulti, c.txn = true, nil
	case "EXEC", "DISCARD":
		p.queued, c.txn, c.inMulti = c.txn, nil, false
	case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "MONITOR", "SYNC", "PSYNC":
		c.breakLocked(p.cmd.Sent) // replies no longer answer requests one for one
		c.settle(p, OutcomeUnread, "", p.cmd.Sent)
		return
	default:
		if c.inMulti {
			p.inTxn = true
			c.txn = append(c.txn, p)
		}
	}
	c.waiting = append(c.waiting, p)
}

// replied settles the oldest waiting request with a reply of type typ
// (its header line after the type byte in line).
func (c *redisConn) replied(typ byte, line []byte, count int, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken || c.ended {
		return
	}
	if len(c.waiting) == 0 {
		c.breakLocked(at) // a reply nobody asked for: pairing is lost
		return
	}
	p := c.waiting[0]
	c.waiting = c.waiting[1:]
	outcome, text := OutcomeAnswered, ""
	switch {
	case c.lost:
		outcome = OutcomeDropped
	case c.judging && typ == '-' && bytes.HasPrefix(line, []byte("NOSCRIPT")):
		c.judging = false // the script never ran; the fault gives the firing back
		outcome, text = OutcomeError, replyText(line)
	case c.judging:
		c.judging, c.lost = false, true
		outcome = OutcomeDropped
	case typ == '-':
		outcome, text = OutcomeError, replyText(line)
	case p.cmd.Name == "EXEC" && typ == '*' && count < 0:
		outcome, text = OutcomeError, "transaction aborted (a watched key changed)"
	}
	c.settleReply(p, outcome, text, at)
}

// settleReply settles p and, for an EXEC or DISCARD, what its transaction
// queued; a command queued inside MULTI waits for them.
func (c *redisConn) settleReply(p *pendingCmd, outcome, text string, at time.Time) {
	if p.inTxn && outcome == OutcomeAnswered {
		return // queued: the transaction's EXEC decides
	}
	p.inTxn = false // rejected while queued, or lost: settled now
	c.settle(p, outcome, text, at)
	for _, q := range p.queued {
		if !q.inTxn {
			continue
		}
		q.inTxn = false
		switch {
		case p.cmd.Name == "DISCARD" && outcome == OutcomeAnswered:
			c.settle(q, OutcomeAnswered, "discarded by the client", at)
		default:
			c.settle(q, outcome, text, at)
		}
	}
}

// marker notes a lost-reply marker's reply: the next reply is the fired
// command's, lost unless it is a NOSCRIPT error.
func (c *redisConn) marker() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lost {
		c.judging = true
	}
}

// end settles every waiting request: the connection is gone.
func (c *redisConn) end(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	outcome := OutcomeClosed
	if c.lost || c.judging {
		outcome = OutcomeDropped
	}
	for _, p := range c.waiting {
		c.settleReply(p, outcome, "", at)
	}
	for _, p := range c.txn {
		if p.inTxn { // queued, and no EXEC came
			p.inTxn = false
			c.settle(p, outcome, "", at)
		}
	}
	c.waiting, c.txn, c.ended = nil, nil, true
}

func (c *redisConn) breakLocked(at time.Time) {
	for _, p := range c.waiting {
		c.settle(p, OutcomeUnread, "", at)
	}
	c.waiting, c.txn, c.broken = nil, nil, true
}

// settle records p when it names a job, or when it failed: a write that
// got an error reply, or any command whose reply was dropped or never came.
func (c *redisConn) settle(p *pendingCmd, outcome, text string, at time.Time) {
	failed := outcome == OutcomeDropped || outcome == OutcomeClosed || outcome == OutcomeError && p.cmd.Write
	if len(p.cmd.Jobs) == 0 && !failed {
		return
	}
	cmd := p.cmd
	cmd.Outcome, cmd.Reply, cmd.Replied = outcome, text, at
	c.link.log.record(cmd)
}

// replyText is an error reply's text as the client reads it, cut; the
// unknown command a refusing fault sends in a write's place reads as the
// fault's refusal.
func replyText(line []byte) string {
	if bytes.Contains(line, []byte(queueErrorPrefix)) {
		return "refused by a fault (queue-error or redis-state)"
	}
	s := string(line)
	if len(s) > replyTextLimit {
		s = s[:replyTextLimit]
	}
	return s
}

// isWriteCommand says whether a command may write: a script, or a write
// command of keyArgs.
func isWriteCommand(name string) bool {
	if _, ok := keyArgs[name]; ok {
		return true
	}
	return name == "EVAL" || name == "EVALSHA" || name == "FCALL"
}

// redisCommandScan reads the client's requests and queues each on its
// connection; it forwards every byte at once. A request's bytes (up to
// commandScanLimit) are copied until its end, to find the job ids it names.
type redisCommandScan struct {
	conn    *redisConn
	sc      *respScanner
	name    string
	keep    bool
	buf     []byte
	stopped bool
	hold
	quiet
}

func (r *redisCommandScan) process(data []byte) []byte {
	return scanChunk(&r.hold, r.sc, r, data)
}

func (r *redisCommandScan) mode() scanMode {
	if r.sc.broken && !r.stopped {
		r.stopped = true
		r.conn.mu.Lock()
		r.conn.breakLocked(time.Now().UTC())
		r.conn.mu.Unlock()
	}
	return brokenMode(r.sc)
}

func (r *redisCommandScan) take(b []byte) {
	r.hold.take(b)
	if r.keep && len(r.buf) < commandScanLimit {
		r.buf = append(r.buf, b[:min(len(b), commandScanLimit-len(r.buf))]...)
	}
}

func (r *redisCommandScan) on(ev respEvent) {
	switch ev {
	case respStart:
		r.name, r.keep, r.buf = "", true, r.buf[:0]
	case respName:
		r.name = string(bytes.ToUpper(r.sc.name))
	case respEnd:
		cmd := Command{Link: r.conn.link.link, Name: r.name, Write: isWriteCommand(r.name), Sent: time.Now().UTC(),
			Jobs: jobIDs(r.buf, r.conn.link.log.needle())}
		r.keep, r.buf = false, r.buf[:0]
		r.conn.sent(&pendingCmd{cmd: cmd})
	}
}

func (r *redisCommandScan) flush() ([]byte, bool) {
	r.conn.end(time.Now().UTC())
	return r.flushHeld()
}

// redisReplyScan reads the server's replies and settles the requests they
// answer; it forwards every byte at once.
type redisReplyScan struct {
	conn *redisConn
	sc   *respScanner
	hold
	quiet
}

func (r *redisReplyScan) process(data []byte) []byte {
	return scanChunk(&r.hold, r.sc, r, data)
}

func (r *redisReplyScan) mode() scanMode {
	if r.sc.broken {
		r.conn.mu.Lock()
		if !r.conn.broken {
			r.conn.breakLocked(time.Now().UTC())
		}
		r.conn.mu.Unlock()
	}
	return brokenMode(r.sc)
}

func (r *redisReplyScan) on(ev respEvent) {
	if ev != respEnd {
		return
	}
	switch {
	case r.sc.topType == '>':
		return // a RESP3 push answers no request
	case r.sc.topType == '$' && r.sc.topLen == markerLen && bytes.HasPrefix(r.sc.topBulk, []byte(markerPrefix)):
		r.conn.marker() // the lost-reply watcher's ECHO: no request of the client's
		return
	}
	count := r.sc.topCount
	if r.sc.topType == '*' && bytes.Equal(r.sc.topLine, []byte("-1")) {
		count = -1
	}
	r.conn.replied(r.sc.topType, r.sc.topLine, count, time.Now().UTC())
}

func (r *redisReplyScan) flush() ([]byte, bool) {
	r.conn.end(time.Now().UTC())
	return r.flushHeld()
}

// jobIDs lists the job ids of the run in b: needle followed by at least
// one digit, each once, in order of appearance.
func jobIDs(b, needle []byte) []string {
	if len(needle) == 0 {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for {
		i := bytes.Index(b, needle)
		if i < 0 {
			return out
		}
		j := i + len(needle)
		k := j
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		if k > j {
			if id := string(b[i:k]); !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		b = b[k:]
	}
}
