package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

func TestClockAndOrderingLine(t *testing.T) {
	require.Equal(t, "clock go-overlay, ordering per-aggregate",
		clockAndOrdering(supervisor.Capabilities{Clock: clockskew.GoOverlay, Ordering: supervisor.OrderingPerAggregate}))
	require.Regexp(t, `^clock none \(clock-skew is skipped: the adapter declares no way to skew its clock .*\), ordering none \(ordering is skipped: nothing promised\)$`,
		clockAndOrdering(supervisor.Capabilities{}))
}
