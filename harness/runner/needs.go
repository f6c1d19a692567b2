package runner

import (
	"slices"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// NeedClockSkew: the adapter declares a way to skew its clock
// (Capabilities.Clock) that works here (libfaketime installed for
// faketime).
const NeedClockSkew Needs = "clock-skew"

// NeedOrdering: the adapter declares ordering: per-aggregate.
const NeedOrdering Needs = "ordering"

// OrderingPerAggregate is the one ordering promise there is.
const OrderingPerAggregate = supervisor.OrderingPerAggregate

// missingClockOrOrder says why the adapter cannot run a scenario needing
// NeedClockSkew or NeedOrdering, or "".
func missingClockOrOrder(n Needs, clock, ordering string) string {
	switch {
	case n == NeedClockSkew:
		return clockskew.Missing(clock)
	case n == NeedOrdering && ordering != OrderingPerAggregate:
		return "the adapter does not declare ordering: per-aggregate (the invariant is opt-in)"
	}
	return ""
}

// commandLiner is an adapter that can tell its start and build command
// lines (a manifest adapter).
type commandLiner interface {
	CommandLines() (start, build []string)
}

// skipDeclarations names the declaration that would let a skipped scenario
// run: capabilities.clock, guessed from the adapter's commands, when the
// scenario needs clock skew and the adapter declares no clock. Nil
// otherwise (a clock declared but not usable here is the machine's lack,
// not the manifest's).
func skipDeclarations(s Scenario, a supervisor.Adapter) []declare.Suggestion {
	clock := a.Capabilities().Clock
	lines, ok := a.(commandLiner)
	if !ok || !slices.Contains(s.Needs, NeedClockSkew) || (clock != "" && clock != clockskew.None) {
		return nil
	}
	start, build := lines.CommandLines()
	return []declare.Suggestion{declare.ClockSuggestion(s.Name, start, build)}
}
