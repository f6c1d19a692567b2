package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
)

// Network puts Fault on the Dep links ("mysql" or "redis") of the instance
// in Slot, or of every instance when Slot is "", for For.
type Network struct {
	Dep   string
	Slot  string // "" means every link
	Fault faultproxy.Fault
	For   time.Duration
}

// String is "<Dep> <fault> on <Slot or every link> for <For>", e.g. "redis
// latency 150ms on d1 for 2s".
func (s Network) String() string {
	what, on := "(no fault)", "every link"
	if s.Fault != nil {
		what = s.Fault.String()
	}
	if s.Slot != "" {
		on = s.Slot
	}
	return fmt.Sprintf("%s %s on %s for %s", s.Dep, what, on, s.For)
}

// Validate wants mysql or redis, a slot of the run or every link, a valid
// fault that can act on Dep, and a positive duration.
func (s Network) Validate(slots int) error {
	return invalid(s, validServer("dependency", s.Dep), validSlot(s.Slot, slots, true), s.validFault(), positive(s.For))
}

func (s Network) validFault() error {
	if s.Fault == nil {
		return errors.New("no fault: set Fault")
	}
	if p := faultproxy.Protocol(s.Fault); p != "" && p != s.Dep {
		return fmt.Errorf("%s cannot act on %s", s.Fault.Kind(), s.Dep)
	}
	return s.Fault.Validate()
}

// Nominal is For.
func (s Network) Nominal() time.Duration { return s.For }

func (s Network) run(ctx context.Context, n *nemesis.Nemesis) error {
	return n.Network(ctx, s.Dep, s.Slot, s.Fault, s.For)
}

// The network choices the generator draws, simplest (shortest) first;
// outages stay inside the retry budget.
var (
	netFor    = []time.Duration{300 * time.Millisecond, time.Second, 2 * time.Second}
	latencies = []time.Duration{50 * time.Millisecond, 150 * time.Millisecond}
	rates     = []int{64, 16}
	slices    = []int{64, 8}
	// netFaults are the faults drawn per dependency, each with the draws
	// of its settings.
	netFaults = map[string][]func(Chooser) faultproxy.Fault{
		"mysql": {drawLatency, fixed(faultproxy.Reset{}), fixed(faultproxy.Down{}), fixed(faultproxy.Blackhole{}), drawBandwidth, drawSlicer, drawLostCommit},
		"redis": {drawLatency, fixed(faultproxy.Reset{}), fixed(faultproxy.Down{}), fixed(faultproxy.Blackhole{}), drawBandwidth, drawSlicer, drawLostAdd},
	}
)

// available: network steps are offered once per dependency (the menu
// lists a Network for each), so they come up as often as process faults.
func (Network) available(Space) bool { return true }

// draw draws, in this order, the link (0: every link), the fault and its
// settings, and the duration, on the entry's Dep.
func (s Network) draw(c Chooser, sp Space) Step {
	out := Network{Dep: s.Dep}
	if k := c.Choose("link", sp.Slots+1); k > 0 {
		out.Slot = fmt.Sprintf("d%d", k)
	}
	out.Fault = pick(c, "fault", faultsOn(s.Dep, sp))(c)
	out.For = pick(c, "for", netFor)
	return out
}

// faultsOn lists the faults drawn on dep: netFaults, and on the store
// SQL error packets last where the space has them (a space without them
// asks the same questions as before).
func faultsOn(dep string, sp Space) []func(Chooser) faultproxy.Fault {
	all := netFaults[dep]
	if dep == "mysql" && sp.SQLErrors {
		all = append(all[:len(all):len(all)], drawSQLError)
	}
	return all
}

// sqlShares are the shares of locking statements refused, lowest first.
var sqlShares = []float64{0.1, 0.3}

// drawSQLError draws a share of the store's locking statements answered
// with a deadlock or a lock wait timeout (faultproxy.SQLError).
func drawSQLError(c Chooser) faultproxy.Fault {
	return faultproxy.SQLError{Probability: pick(c, "share", sqlShares)}
}

func fixed(f faultproxy.Fault) func(Chooser) faultproxy.Fault {
	return func(Chooser) faultproxy.Fault { return f }
}

// drawLatency draws a latency; its jitter is a third of it.
func drawLatency(c Chooser) faultproxy.Fault {
	l := pick(c, "latency", latencies)
	return faultproxy.Latency{Latency: l, Jitter: (l / 3).Truncate(time.Millisecond)}
}

func drawBandwidth(c Chooser) faultproxy.Fault {
	return faultproxy.Bandwidth{Rate: pick(c, "rate", rates)}
}

// drawSlicer draws an average slice; sizes vary by half of it, 100 µs
// apart.
func drawSlicer(c Chooser) faultproxy.Fault {
	n := pick(c, "slice", slices)
	return faultproxy.Slicer{Average: n, Size: n / 2, Delay: 100}
}

func drawLostAdd(c Chooser) faultproxy.Fault {
	return faultproxy.LostReplyRedisAdd{Times: 1 + c.Choose("times", 2)}
}

func drawLostCommit(c Chooser) faultproxy.Fault {
	return faultproxy.LostReplyMySQLCommit{Times: 1 + c.Choose("times", 2)}
}
