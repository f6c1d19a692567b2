package faultproxy

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind names a network fault.
type Kind string

// The fault kinds. doc.go says how each maps onto toxiproxy toxics.
const (
	Latency              Kind = "latency"
	Blackhole            Kind = "blackhole"
	Reset                Kind = "reset"
	Down                 Kind = "down"
	Bandwidth            Kind = "bandwidth"
	Slicer               Kind = "slicer"
	LostReplyRedisAdd    Kind = "lost-reply-redis-add"
	LostReplyMySQLCommit Kind = "lost-reply-mysql-commit"
	QueueError           Kind = "queue-error"
	CommitHoldMySQL      Kind = "commit-hold-mysql"
	// SQLError answers a share of the client's locking statements with a
	// MySQL deadlock (1213) or lock wait timeout (1205) instead of running
	// them (mysql_error.go).
	SQLError Kind = "sql-error"
)

// Directions a toxic can act on.
const (
	// Downstream is the server-to-client direction (replies); the default.
	Downstream = "downstream"
	// Upstream is the client-to-server direction (requests).
	Upstream = "upstream"
)

// Kinds lists every fault kind in a fixed order.
func Kinds() []Kind {
	return []Kind{Latency, Blackhole, Reset, Down, Bandwidth, Slicer, LostReplyRedisAdd, LostReplyMySQLCommit, QueueError, CommitHoldMySQL, SQLError}
}

// Fault describes one network fault. Only the fields of its Kind may be set;
// Validate says which.
type Fault struct {
	Kind Kind
	// Direction is "downstream" (default) or "upstream"; lost-reply and down
	// faults act on both directions and take none.
	Direction string
	// Latency and Jitter (latency): each chunk is delayed by Latency plus a
	// seeded uniform draw in [-Jitter, +Jitter]. Whole milliseconds;
	// Jitter <= Latency.
	Latency, Jitter time.Duration
	// Rate (bandwidth) in KB/s, > 0.
	Rate int
	// Timeout (blackhole, reset): blackhole closes the connection after it,
	// reset waits it before resetting; 0 = hold forever / reset at once.
	Timeout time.Duration
	// Average (bytes, > 0), Size (variation in bytes, < Average) and Delay
	// (microseconds between slices) configure the slicer.
	Average, Size, Delay int
	// Times (lost reply, commit hold) is how many replies to lose, or
	// COMMITs to hold, before passing everything; 0 means once.
	Times int
	// Probability (lost reply) that a matching request loses its reply,
	// or (sql-error) that a locking statement is answered with an error,
	// drawn from the run's seeded randomness; 0 means 1.
	Probability float64
	// Queue (queue-error, required) is the BullMQ queue whose writes Redis
	// refuses; Prefix is its key prefix, "bull" when empty.
	Queue, Prefix string
	// Hold (commit-hold-mysql, > 0) is how long a COMMIT is held back.
	Hold time.Duration
}

// field is one optional Fault field, for the per-kind applicability check.
type field struct {
	name string
	set  func(Fault) bool
}

var fields = []field{
	{"Direction", func(f Fault) bool { return f.Direction != "" }},
	{"Latency", func(f Fault) bool { return f.Latency != 0 }},
	{"Jitter", func(f Fault) bool { return f.Jitter != 0 }},
	{"Rate", func(f Fault) bool { return f.Rate != 0 }},
	{"Timeout", func(f Fault) bool { return f.Timeout != 0 }},
	{"Average", func(f Fault) bool { return f.Average != 0 }},
	{"Size", func(f Fault) bool { return f.Size != 0 }},
	{"Delay", func(f Fault) bool { return f.Delay != 0 }},
	{"Times", func(f Fault) bool { return f.Times != 0 }},
	{"Probability", func(f Fault) bool { return f.Probability != 0 }},
	{"Queue", func(f Fault) bool { return f.Queue != "" }},
	{"Prefix", func(f Fault) bool { return f.Prefix != "" }},
	{"Hold", func(f Fault) bool { return f.Hold != 0 }},
}

// applies lists, per kind, the fields it reads.
var applies = map[Kind][]string{
	Latency:              {"Direction", "Latency", "Jitter"},
	Blackhole:            {"Direction", "Timeout"},
	Reset:                {"Direction", "Timeout"},
	Down:                 {},
	Bandwidth:            {"Direction", "Rate"},
	Slicer:               {"Direction", "Average", "Size", "Delay"},
	LostReplyRedisAdd:    {"Times", "Probability"},
	LostReplyMySQLCommit: {"Times", "Probability"},
	QueueError:           {"Queue", "Prefix"},
	CommitHoldMySQL:      {"Times", "Hold"},
	SQLError:             {"Probability"},
}

// Validate reports the first thing wrong with f, saying what to fix.
func (f Fault) Validate() error {
	allowed, ok := applies[f.Kind]
	if !ok {
		return fmt.Errorf("fault kind %q is unknown: want one of %s", f.Kind, kindList())
	}
	for _, fl := range fields {
		if fl.set(f) && !contains(allowed, fl.name) {
			return fmt.Errorf("fault %s: field %s does not apply to this kind (it takes: %s)",
				f.Kind, fl.name, orNone(allowed))
		}
	}
	if err := f.validateDirection(); err != nil {
		return err
	}
	if err := f.validateKind(); err != nil {
		return fmt.Errorf("fault %s: %w", f.Kind, err)
	}
	return nil
}

func (f Fault) validateDirection() error {
	switch f.Direction {
	case "", Downstream, Upstream:
		return nil
	}
	return fmt.Errorf("fault %s: direction %q: want %q or %q (empty means %q)",
		f.Kind, f.Direction, Downstream, Upstream, Downstream)
}

func (f Fault) validateKind() error {
	switch f.Kind {
	case Latency:
		return f.validateLatency()
	case Blackhole, Reset:
		return wholeMillis("Timeout", f.Timeout)
	case Bandwidth:
		if f.Rate <= 0 {
			return fmt.Errorf("rate %d KB/s: want > 0", f.Rate)
		}
	case Slicer:
		return f.validateSlicer()
	case QueueError:
		return f.validateQueue()
	case CommitHoldMySQL:
		if f.Times < 0 {
			return fmt.Errorf("times %d: want >= 0 (0 means once)", f.Times)
		}
		if f.Hold <= 0 {
			return fmt.Errorf("hold %v: want > 0, how long a COMMIT is held back", f.Hold)
		}
	case SQLError:
		if f.Probability < 0 || f.Probability > 1 {
			return fmt.Errorf("probability %v: want within [0, 1] (0 means 1)", f.Probability)
		}
	case LostReplyRedisAdd, LostReplyMySQLCommit:
		if f.Times < 0 {
			return fmt.Errorf("times %d: want >= 0 (0 means once)", f.Times)
		}
		if f.Probability < 0 || f.Probability > 1 {
			return fmt.Errorf("probability %v: want within [0, 1] (0 means 1)", f.Probability)
		}
	}
	return nil
}

func (f Fault) validateLatency() error {
	if err := wholeMillis("Latency", f.Latency); err != nil {
		return err
	}
	if err := wholeMillis("Jitter", f.Jitter); err != nil {
		return err
	}
	if f.Latency == 0 && f.Jitter == 0 {
		return errors.New("latency and jitter are both 0: set Latency")
	}
	if f.Jitter > f.Latency {
		return fmt.Errorf("jitter %v exceeds latency %v: a delay cannot be negative", f.Jitter, f.Latency)
	}
	return nil
}

func (f Fault) validateSlicer() error {
	if f.Average <= 0 {
		return fmt.Errorf("average slice size %d bytes: want > 0", f.Average)
	}
	if f.Size < 0 || f.Size >= f.Average {
		return fmt.Errorf("size variation %d bytes: want >= 0 and < average %d", f.Size, f.Average)
	}
	if f.Delay < 0 {
		return fmt.Errorf("delay %d µs: want >= 0", f.Delay)
	}
	return nil
}

func (f Fault) validateQueue() error {
	if f.Queue == "" {
		return errors.New("queue is empty: name the BullMQ queue whose adds Redis must refuse")
	}
	for _, v := range []struct{ name, s string }{{"queue", f.Queue}, {"prefix", f.Prefix}} {
		if strings.IndexFunc(v.s, func(r rune) bool { return r <= ' ' || r == 0x7f || r == ':' }) >= 0 {
			return fmt.Errorf("%s %q: no whitespace, control characters or ':'", v.name, v.s)
		}
	}
	return nil
}

// prefix returns a queue-error fault's key prefix, defaulting to "bull".
func (f Fault) prefix() string {
	if f.Prefix == "" {
		return "bull"
	}
	return f.Prefix
}

// direction returns the toxiproxy stream name, defaulting to downstream.
func (f Fault) direction() string {
	if f.Direction == "" {
		return Downstream
	}
	return f.Direction
}

// times returns how many replies a lost-reply fault loses.
func (f Fault) times() int {
	if f.Times == 0 {
		return 1
	}
	return f.Times
}

// probability returns the chance a lost-reply candidate fires.
func (f Fault) probability() float64 {
	if f.Probability == 0 {
		return 1
	}
	return f.Probability
}

func wholeMillis(name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%s %v: want >= 0", strings.ToLower(name), d)
	}
	if d%time.Millisecond != 0 {
		return fmt.Errorf("%s %v: want whole milliseconds (toxiproxy's unit)", strings.ToLower(name), d)
	}
	return nil
}

func kindList() string {
	names := make([]string, 0, len(applies))
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "no fields"
	}
	return strings.Join(list, ", ")
}
