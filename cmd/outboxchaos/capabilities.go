package main

import (
	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// clockAndOrdering says how the harness can skew the adapter's clock and
// what order it promises, with why clock-skew or ordering would be skipped.
func clockAndOrdering(c supervisor.Capabilities) string {
	clock := "clock " + c.Clock
	if c.Clock == "" {
		clock = "clock none"
	}
	if why := clockskew.Missing(c.Clock); why != "" {
		clock += " (clock-skew is skipped: " + why + ")"
	}
	order := "ordering " + c.Ordering
	if c.Ordering == "" {
		order = "ordering none (ordering is skipped: nothing promised)"
	}
	return clock + ", " + order
}
