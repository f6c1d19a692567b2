package runner

import (
	"github.com/outboxchaos/outboxchaos/harness/clockskew"
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
