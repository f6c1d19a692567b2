package supervisor

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Crash-point variables of the contract's reference dispatcher.
const (
	EnvFailpoints    = "OUTBOX_FAILPOINTS"
	EnvFailpointSeed = "OUTBOX_FAILPOINT_SEED"
)

// Failpoint names: the points in one event's dispatch where the reference
// can crash or sleep.
const (
	PointAfterClaim           = "after-claim"
	PointAfterEnqueue         = "after-enqueue"
	PointBeforeFinalizeCommit = "before-finalize-commit"
	PointAfterFinalizeCommit  = "after-finalize-commit"
)

// Failpoint actions and triggers.
const (
	ActionCrash   = "crash"
	ActionSleep   = "sleep"
	TriggerAlways = "always"
	TriggerNth    = "nth"
	TriggerProb   = "prob"
)

// FailpointNames returns the failpoint names, in dispatch order.
func FailpointNames() []string {
	return []string{PointAfterClaim, PointAfterEnqueue, PointBeforeFinalizeCommit, PointAfterFinalizeCommit}
}

// Failpoint is one entry of OUTBOX_FAILPOINTS: at Name, do Action (crash, or
// sleep for Sleep) when Trigger fires (always; the Nth time the point is
// reached; with probability Prob). An empty Trigger means always and is left
// out of the text.
type Failpoint struct {
	Name    string
	Action  string
	Sleep   time.Duration
	Trigger string
	Nth     int
	Prob    float64
}

// Crash is a failpoint that crashes at name every time.
func Crash(name string) Failpoint { return Failpoint{Name: name, Action: ActionCrash} }

// SleepAt is a failpoint that sleeps d at name every time.
func SleepAt(name string, d time.Duration) Failpoint {
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
	if !knownPoint(f.Name) {
		return fmt.Errorf("failpoint %q: unknown name: use one of %s", f.Name, strings.Join(FailpointNames(), ", "))
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

func knownPoint(name string) bool {
	for _, n := range FailpointNames() {
		if n == name {
			return true
		}
	}
	return false
}

// String is the failpoint's OUTBOX_FAILPOINTS entry, like
// "after-enqueue=crash@nth:3" or "after-claim=sleep(250ms)@prob:0.5".
func (f Failpoint) String() string {
	var b strings.Builder
	b.WriteString(f.Name + "=")
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
	seen := map[string]bool{}
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

// ParseFailpoints reads an OUTBOX_FAILPOINTS value back (the empty string is
// no failpoint). It accepts exactly what FailpointEnv writes.
func ParseFailpoints(s string) ([]Failpoint, error) {
	if s == "" {
		return nil, nil
	}
	var out []Failpoint
	for _, entry := range strings.Split(s, ";") {
		f, err := parseFailpoint(entry)
		if err != nil {
			return nil, fmt.Errorf("%s entry %q: %w", EnvFailpoints, entry, err)
		}
		out = append(out, f)
	}
	if _, err := FailpointEnv(out...); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvFailpoints, err)
	}
	return out, nil
}

func parseFailpoint(entry string) (Failpoint, error) {
	name, rest, ok := strings.Cut(entry, "=")
	if !ok {
		return Failpoint{}, fmt.Errorf("want <name>=<action>[@<trigger>]")
	}
	action, trigger, _ := strings.Cut(rest, "@")
	f := Failpoint{Name: name}
	if err := f.parseAction(action); err != nil {
		return Failpoint{}, err
	}
	if err := f.parseTrigger(trigger); err != nil {
		return Failpoint{}, err
	}
	return f, f.Validate()
}

func (f *Failpoint) parseAction(action string) error {
	if action == ActionCrash {
		f.Action = ActionCrash
		return nil
	}
	arg, ok := strings.CutPrefix(action, ActionSleep+"(")
	if arg, ok2 := strings.CutSuffix(arg, ")"); ok && ok2 {
		d, err := time.ParseDuration(arg)
		if err != nil {
			return fmt.Errorf("sleep duration: %w", err)
		}
		f.Action, f.Sleep = ActionSleep, d
		return nil
	}
	return fmt.Errorf("action %q: want crash or sleep(<duration>)", action)
}

func (f *Failpoint) parseTrigger(trigger string) error {
	kind, arg, hasArg := strings.Cut(trigger, ":")
	switch {
	case trigger == "":
		return nil
	case trigger == TriggerAlways:
		f.Trigger = TriggerAlways
	case kind == TriggerNth && hasArg:
		n, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("nth: %w", err)
		}
		f.Trigger, f.Nth = TriggerNth, n
	case kind == TriggerProb && hasArg:
		p, err := strconv.ParseFloat(arg, 64)
		if err != nil {
			return fmt.Errorf("prob: %w", err)
		}
		f.Trigger, f.Prob = TriggerProb, p
	default:
		return fmt.Errorf("trigger %q: want always, nth:<N> or prob:<p>", trigger)
	}
	return nil
}
