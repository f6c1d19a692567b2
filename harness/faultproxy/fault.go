package faultproxy

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind names a network fault kind, as the history records it.
type Kind string

// Direction is the stream a toxic acts on.
type Direction string

// Directions a toxic can act on.
const (
	// Downstream is the server-to-client direction (replies); the default.
	Downstream Direction = "downstream"
	// Upstream is the client-to-server direction (requests).
	Upstream Direction = "upstream"
)

// Fault is one network fault. Each kind is a type of its own, in a file of
// its own (latency.go, blackhole.go, ... commit_hold_postgres.go),
// carrying only the settings it takes, and listed once in All. doc.go
// says which toxics each kind becomes.
type Fault interface {
	// Kind names the fault in the history and in messages.
	Kind() Kind
	// String names the fault and its main setting for a person, e.g.
	// "latency 150ms" or "bandwidth 64KB/s"; Params holds every setting.
	String() string
	// Params are the settings the fault's history record carries: only
	// those set, keyed and formatted as recorded runs have them.
	Params() map[string]string
	// Validate reports the first thing wrong with the fault, naming its kind
	// and saying what to fix.
	Validate() error
	// apply builds what the fault adds to a link: its toxics, named after
	// id, and the state they share. seed feeds the fault's own generator.
	apply(id string, seed int64) applied
}

// applied is what one fault adds to a link.
type applied struct {
	// toxics are added in order and removed in reverse.
	toxics []toxicSpec
	// state is what the toxics share, found by key in its registry (nil for
	// plain toxics); Proxy's Fired, Refused, Held and Tally read it.
	state any
	// release unregisters state; nil without one.
	release func()
	// armed, when set, is called once every toxic is on the link: a toxic
	// state made after it belongs to a connection opened since (half-open).
	armed func()
	// down: no toxic, the link stops listening while the fault lasts.
	down bool
}

// All lists every fault kind, a zero value each, in a fixed order: the one
// place a kind is registered.
func All() []Fault {
	return []Fault{
		Latency{}, Blackhole{}, Reset{}, Down{}, Bandwidth{}, Slicer{},
		LostReplyRedisAdd{}, LostReplyMySQLCommit{}, QueueError{}, CommitHoldMySQL{}, SQLError{},
		LostReplyPostgresCommit{}, CommitHoldPostgres{}, RedisState{}, HalfOpen{}, SQLReadOnly{},
	}
}

// Kinds lists the kind of every fault in All, in its order.
func Kinds() []Kind {
	all := All()
	out := make([]Kind, len(all))
	for i, f := range all {
		out[i] = f.Kind()
	}
	return out
}

// Protocol is the protocol a fault's toxics parse, "redis", "mysql" or
// "postgres", for
// a fault that can only act on a link to that server (a lost Redis reply,
// a held COMMIT); "" for a fault that acts on any TCP link.
func Protocol(f Fault) string {
	if p, ok := f.(interface{ protocol() string }); ok {
		return p.protocol()
	}
	return ""
}

// withDirection appends an upstream fault's direction to its name.
func withDirection(name string, d Direction) string {
	if d == Upstream {
		return name + " upstream"
	}
	return name
}

// invalid returns the first non-nil problem, prefixed with the fault's kind.
func invalid(f Fault, problems ...error) error {
	for _, err := range problems {
		if err != nil {
			return fmt.Errorf("fault %s: %w", f.Kind(), err)
		}
	}
	return nil
}

func validDirection(d Direction) error {
	switch d {
	case "", Downstream, Upstream:
		return nil
	}
	return fmt.Errorf("direction %q: want %q or %q (empty means %q)", d, Downstream, Upstream, Downstream)
}

// stream returns the toxiproxy stream name of d, downstream when empty.
func (d Direction) stream() string {
	if d == "" {
		return string(Downstream)
	}
	return string(d)
}

// directionParams starts a fault's params with its direction, when set.
func directionParams(d Direction) map[string]string {
	p := map[string]string{}
	if d != "" {
		p["direction"] = string(d)
	}
	return p
}

func wholeMillis(name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%s %v: want >= 0", name, d)
	}
	if d%time.Millisecond != 0 {
		return fmt.Errorf("%s %v: want whole milliseconds (toxiproxy's unit)", name, d)
	}
	return nil
}

func validTimes(n int) error {
	if n < 0 {
		return fmt.Errorf("times %d: want >= 0 (0 means once)", n)
	}
	return nil
}

func validProbability(p float64) error {
	if p < 0 || p > 1 {
		return fmt.Errorf("probability %v: want within [0, 1] (0 means 1)", p)
	}
	return nil
}

// once returns a Times setting, 0 meaning once.
func once(n int) int {
	if n == 0 {
		return 1
	}
	return n
}

// certain returns a Probability setting, 0 meaning 1.
func certain(p float64) float64 {
	if p == 0 {
		return 1
	}
	return p
}

// validName rejects what cannot be part of a Redis key name a fault matches.
func validName(what, s string) error {
	if strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r == ':' }) >= 0 {
		return fmt.Errorf("%s %q: no whitespace, control characters or ':'", what, s)
	}
	return nil
}

var errNoFault = errors.New("no fault given (nil)")

// SinkBound is a Redis fault whose meaning depends on where the dispatcher
// publishes (what a publish is, what a queue's keys are): the nemesis hands
// it the run's sink kind before adding it.
type SinkBound interface {
	OnSink(sink string) Fault
}

var (
	_ SinkBound = LostReplyRedisAdd{}
	_ SinkBound = QueueError{}
)

// The stores a database fault can be bound to: the protocol their links
// speak, as harness/store names them.
const (
	StoreMySQL    = "mysql"    // MySQL and MariaDB
	StorePostgres = "postgres" // PostgreSQL
)

// StoreBound is a database fault whose toxics parse the store's wire
// protocol (a COMMIT, a locking statement): the nemesis hands it the run's
// store (StoreMySQL or StorePostgres) before adding it. Binding returns
// the fault of the same settings for that protocol: a fault of another
// kind when the kind names its protocol (lost-reply-mysql-commit becomes
// lost-reply-postgres-commit), the same kind with its store recorded when
// it does not (sql-error). A caller checks the store with ValidStore
// first: bound to another, SQLError fails Validate and the other kinds
// stay as they are.
type StoreBound interface {
	OnStore(store string) Fault
}

var (
	_ StoreBound = LostReplyMySQLCommit{}
	_ StoreBound = LostReplyPostgresCommit{}
	_ StoreBound = CommitHoldMySQL{}
	_ StoreBound = CommitHoldPostgres{}
	_ StoreBound = SQLError{}
	_ StoreBound = SQLReadOnly{}
)

// ValidStore rejects a store no database fault can be bound to; "" is
// MySQL, the contract's own.
func ValidStore(store string) error {
	switch store {
	case "", StoreMySQL, StorePostgres:
		return nil
	}
	return fmt.Errorf("store %q: want %q or %q (empty means %q)", store, StoreMySQL, StorePostgres, StoreMySQL)
}
