package adapters

import (
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// BlackBoxSuffix on an --adapter argument ("reference+blackbox",
// "mutant:NAME+blackbox") runs that dispatcher as a black box: its crash
// points are declared absent, so the harness reaches its windows from
// outside (the window and pause traps), as it must for any other team's
// dispatcher. A manifest declares crash_points: false itself.
const BlackBoxSuffix = "+blackbox"

// BlackBox returns a with its crash points declared absent and its name
// suffixed with BlackBoxSuffix. The harness never arms a failpoint for it.
func BlackBox(a supervisor.Adapter) supervisor.Adapter { return blackBox{a} }

type blackBox struct{ supervisor.Adapter }

var _ supervisor.Adapter = blackBox{}

func (b blackBox) Name() string { return b.Adapter.Name() + BlackBoxSuffix }

func (b blackBox) Capabilities() supervisor.Capabilities {
	c := b.Adapter.Capabilities()
	c.CrashPoints = false
	return c
}

// Conventions forwards what the wrapped adapter declares about its releases
// and recoveries: hiding crash points changes nothing about them.
func (b blackBox) Conventions() history.Conventions {
	if c, ok := b.Adapter.(interface{ Conventions() history.Conventions }); ok {
		return c.Conventions()
	}
	return history.Conventions{}
}
