package supervisor

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/contract"
)

// Crash-point variables of the contract.
const (
	EnvFailpoints    = contract.EnvFailpoints
	EnvFailpointSeed = contract.EnvFailpointSeed
)

// EnvRedisReplicas is the number of replicas the environment runs for the
// dispatcher's Redis, set only for a dispatcher that declares durability:
// wait (Capabilities.Durability): it waits for that many (WAIT) before it
// marks an event published.
const EnvRedisReplicas = "OUTBOX_REDIS_REPLICAS"

// Failpoint actions and triggers.
const (
	ActionCrash   = "crash"
	ActionSleep   = "sleep"
	TriggerAlways = "always"
	TriggerNth    = "nth"
	TriggerProb   = "prob"
)

// Failpoint is one entry of OUTBOX_FAILPOINTS: at Name, do Action (crash, or
// sleep for Sleep) when Trigger fires (always; the Nth time the point is
// reached; with probability Prob). An empty Trigger means always and is left
// out of the text.
type Failpoint struct {
	Name    contract.CrashPoint
	Action  string
	Sleep   time.Duration
	Trigger string
	Nth     int
	Prob    float64
}

// Crash is a failpoint that crashes at name every time.
func Crash(name contract.CrashPoint) Failpoint { return Failpoint{Name: name, Action: ActionCrash} }

// SleepAt is a failpoint that sleeps d at name every time.
func SleepAt(name contract.CrashPoint, d time.Duration) Failpoint {
	return Failpoint{Name: name, Action: ActionSleep, Sleep: d}
}

// OnNth fires the failpoint only the n-th time its point is reached.
func (f Failpoint) OnNth(n int) Failpoint {
	f.Trigger, f.Nth, f.Prob = TriggerNth, n, 0
	return f
}

// WithProb fires the failpoint with probability p each time.
func (f Failpoint) WithProb(p float64) Failpoint {
	f.Trigger, f.Prob, f.Nth = TriggerProb, p, 0
	return f
}

// Validate checks the failpoint against the syntax the dispatcher parses.
func (f Failpoint) Validate() error {
	if !f.Name.Known() {
		return fmt.Errorf("failpoint %q: unknown name: use one of %s", f.Name, knownPoints())
	}
	switch f.Action {
	case ActionCrash:
		if f.Sleep != 0 {
			return fmt.Errorf("failpoint %s: crash takes no sleep duration (got %s)", f.Name, f.Sleep)
		}
	case ActionSleep:
		if f.Sleep <= 0 {
			return fmt.Errorf("failpoint %s: sleep needs a positive duration (got %s)", f.Name, f.Sleep)
		}
	default:
		return fmt.Errorf("failpoint %s: action %q: use %q or %q", f.Name, f.Action, ActionCrash, ActionSleep)
	}
	return f.validateTrigger()
}

func (f Failpoint) validateTrigger() error {
	switch f.Trigger {
	case "", TriggerAlways:
		if f.Nth != 0 || f.Prob != 0 {
			return fmt.Errorf("failpoint %s: trigger always takes no nth or prob", f.Name)
		}
	case TriggerNth:
		if f.Nth < 1 || f.Prob != 0 {
			return fmt.Errorf("failpoint %s: nth needs N >= 1 and no prob (got N=%d)", f.Name, f.Nth)
		}
	case TriggerProb:
		if !(f.Prob > 0 && f.Prob <= 1) || f.Nth != 0 {
			return fmt.Errorf("failpoint %s: prob needs 0 < p <= 1 and no nth (got p=%v)", f.Name, f.Prob)
		}
	default:
		return fmt.Errorf("failpoint %s: trigger %q: use always, nth or prob", f.Name, f.Trigger)
	}
	return nil
}

func knownPoints() string { return strings.Join(contract.CrashPointNames(), ", ") }

// String is the failpoint's OUTBOX_FAILPOINTS entry, like
// "after-enqueue=crash@nth:3" or "after-claim=sleep(250ms)@prob:0.5".
func (f Failpoint) String() string {
	var b strings.Builder
	b.WriteString(string(f.Name) + "=")
	if f.Action == ActionSleep {
		b.WriteString("sleep(" + f.Sleep.String() + ")")
	} else {
		b.WriteString(f.Action)
	}
	switch f.Trigger {
	case TriggerAlways:
		b.WriteString("@always")
	case TriggerNth:
		b.WriteString("@nth:" + strconv.Itoa(f.Nth))
	case TriggerProb:
		b.WriteString("@prob:" + strconv.FormatFloat(f.Prob, 'f', -1, 64))
	}
	return b.String()
}

// FailpointEnv builds the value of OUTBOX_FAILPOINTS from points, after
// validating each. A name may appear once.
func FailpointEnv(points ...Failpoint) (string, error) {
	seen := map[contract.CrashPoint]bool{}
	entries := make([]string, 0, len(points))
	for _, f := range points {
		if err := f.Validate(); err != nil {
			return "", err
		}
		if seen[f.Name] {
			return "", fmt.Errorf("failpoint %s given twice: give each point once", f.Name)
		}
		seen[f.Name] = true
		entries = append(entries, f.String())
	}
	return strings.Join(entries, ";"), nil
}

// FailpointVars returns OUTBOX_FAILPOINTS and OUTBOX_FAILPOINT_SEED for
// points, ready to merge into an instance's env.
func FailpointVars(seed int64, points ...Failpoint) (map[string]string, error) {
	v, err := FailpointEnv(points...)
	if err != nil {
		return nil, err
	}
	return map[string]string{EnvFailpoints: v, EnvFailpointSeed: strconv.FormatInt(seed, 10)}, nil
}
