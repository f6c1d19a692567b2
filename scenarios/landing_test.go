package scenarios_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/reports"
)

// The reference passes queue-error with the fault landed; the same
// scenario with its planned fault disabled on purpose (a schedule that
// only waits) comes out unknown, because its landing requirement failed,
// although every invariant holds.
func TestQueueErrorLandsAndADisabledFaultMakesTheRunUnknown(t *testing.T) {
	e := endToEnd(t)
	s := catalogScenario(t, "queue-error")
	s.Events = 250

	t.Run("landed", func(t *testing.T) {
		o := runScenario(t, e, s, runner.Options{Adapter: refadapter.New()})
		requireAllPass(t, o)
		require.Len(t, o.Landing, 1)
		require.True(t, o.Landing[0].Met, o.Landing[0].Reason)
		require.Contains(t, resultOf(t, o, "I2").Reason, "ended failed as expected")
		require.NotContains(t, resultOf(t, o, "I6").Reason, "no transient failures")
	})

	t.Run("disabled", func(t *testing.T) {
		off := s
		off.Script = func(ctx context.Context, n *nemesis.Nemesis) error {
			return n.Sleep(ctx, 2*s.Tuning.BackoffMax.D()) // the fault it plans, never applied
		}
		o := runScenario(t, e, off, runner.Options{Adapter: refadapter.New()})
		for _, r := range o.Results {
			require.NotEqual(t, check.Fail, r.Verdict, "%s: %s", r.ID, r.Reason)
		}
		require.Equal(t, check.Unknown, o.Verdict, "a fault that did not land is never a pass")
		require.Equal(t, []check.Landing{{Fault: history.LandQueueError, Needed: 10, Landed: 0, Met: false,
			Reason: "0 adds answered with the broken queue's error; 10 needed"}}, o.Landing)
		res := reports.Build(o.History, o.Results) // what results.json holds
		require.Equal(t, check.Unknown, res.Verdict)
		require.Equal(t, o.Landing, res.Landing)
	})
}
