package failpoint

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"time"
)

type actionKind int

const (
	actionCrash actionKind = iota + 1
	actionSleep
)

type action struct {
	kind  actionKind
	sleep time.Duration
}

type triggerKind int

const (
	triggerAlways triggerKind = iota + 1
	triggerNth
	triggerProb
)

type trigger struct {
	kind triggerKind
	nth  int
	prob float64
}

type entry struct {
	name    Name
	action  action
	trigger trigger
	hits    int
}

// countHit records one more hit and returns the hit number, 1-based.
func (e *entry) countHit() int {
	e.hits++
	return e.hits
}

// fires decides whether the hit-th hit fires. A prob trigger draws from rnd
// on every hit, so the draws follow the hit order.
func (t trigger) fires(hit int, rnd *rand.Rand) bool {
	switch t.kind {
	case triggerNth:
		return hit == t.nth
	case triggerProb:
		return rnd.Float64() < t.prob
	default:
		return true
	}
}

func parseEntry(raw string) (*entry, error) {
	name, rest, ok := strings.Cut(raw, "=")
	if !ok {
		return nil, fmt.Errorf("failpoint entry %q has no '='; use <name>=<action>[@<trigger>]", raw)
	}
	n, err := parseName(strings.TrimSpace(name))
	if err != nil {
		return nil, err
	}
	actText, trigText, hasTrigger := strings.Cut(strings.TrimSpace(rest), "@")
	a, err := parseAction(n, strings.TrimSpace(actText))
	if err != nil {
		return nil, err
	}
	t := trigger{kind: triggerAlways}
	if hasTrigger {
		if t, err = parseTrigger(n, strings.TrimSpace(trigText)); err != nil {
			return nil, err
		}
	}
	return &entry{name: n, action: a, trigger: t}, nil
}

func parseName(s string) (Name, error) {
	for _, n := range Names() {
		if string(n) == s {
			return n, nil
		}
	}
	known := make([]string, 0, len(Names()))
	for _, n := range Names() {
		known = append(known, string(n))
	}
	return "", fmt.Errorf("unknown failpoint %q (known: %s)", s, strings.Join(known, ", "))
}

func parseAction(n Name, s string) (action, error) {
	if s == "crash" {
		return action{kind: actionCrash}, nil
	}
	if arg, ok := strings.CutPrefix(s, "sleep("); ok && strings.HasSuffix(arg, ")") {
		text := strings.TrimSuffix(arg, ")")
		d, err := time.ParseDuration(strings.TrimSpace(text))
		if err != nil || d <= 0 {
			return action{}, fmt.Errorf("failpoint %s: sleep(%s): want a positive Go duration such as sleep(2s)", n, text)
		}
		return action{kind: actionSleep, sleep: d}, nil
	}
	return action{}, fmt.Errorf("failpoint %s: unknown action %q (known: crash, sleep(<duration>))", n, s)
}

func parseTrigger(n Name, s string) (trigger, error) {
	switch {
	case s == "always":
		return trigger{kind: triggerAlways}, nil
	case strings.HasPrefix(s, "nth:"):
		v, err := strconv.Atoi(strings.TrimPrefix(s, "nth:"))
		if err != nil || v < 1 {
			return trigger{}, fmt.Errorf("failpoint %s: trigger %q: want nth:<N> with N >= 1, such as nth:3", n, s)
		}
		return trigger{kind: triggerNth, nth: v}, nil
	case strings.HasPrefix(s, "prob:"):
		p, err := strconv.ParseFloat(strings.TrimPrefix(s, "prob:"), 64)
		if err != nil || !(p > 0 && p <= 1) {
			return trigger{}, fmt.Errorf("failpoint %s: trigger %q: want prob:<p> with 0 < p <= 1, such as prob:0.25", n, s)
		}
		return trigger{kind: triggerProb, prob: p}, nil
	}
	return trigger{}, fmt.Errorf("failpoint %s: unknown trigger %q (known: always, nth:<N>, prob:<p>)", n, s)
}
