package runner

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

func TestExitCodes(t *testing.T) {
	require.Equal(t, 0, ExitCode(Outcome{Verdict: check.Pass}, nil))
	require.Equal(t, 1, ExitCode(Outcome{Verdict: check.Fail}, nil))
	require.Equal(t, 2, ExitCode(Outcome{Verdict: check.Unknown}, nil))
	require.Equal(t, 2, ExitCode(Outcome{}, nil), "a run that decided nothing is not a pass")
	require.Equal(t, 3, ExitCode(Outcome{Verdict: check.Pass}, errTest))
	require.Equal(t, 2, ExitCode(Outcome{Verdict: check.NotExercised}, nil), "a verdict that is not a pass is not exit 0")
	require.Equal(t, 2, ExitCode(Outcome{Verdict: "maybe"}, nil))
}

func TestWorstExit(t *testing.T) {
	require.Equal(t, 0, WorstExit())
	require.Equal(t, 0, WorstExit(0, 0))
	require.Equal(t, 2, WorstExit(0, 2, 0))
	require.Equal(t, 1, WorstExit(1, 2), "a fail outranks an unknown that follows it")
	require.Equal(t, 1, WorstExit(2, 1))
	require.Equal(t, 3, WorstExit(1, 3, 2))
	require.Equal(t, 3, WorstExit(0, 7), "an unknown code is a harness error")
}

var errTest = errors.New("boom")

// The checkers derive bounds from the recorded tuning: a value the adapter
// never passed to its dispatcher must not be recorded as if it had.
func TestHonouredZeroesWhatTheAdapterIgnores(t *testing.T) {
	tn := DefaultTuning()
	got := honoured(tn, supervisor.Capabilities{Tuning: []string{"OUTBOX_LEASE", "OUTBOX_POLL_INTERVAL"}})
	require.Equal(t, tn.Lease, got.Lease)
	require.Equal(t, tn.PollInterval, got.PollInterval)
	require.Zero(t, got.MaxAttempts)
	require.Zero(t, got.BackoffBase)
	require.Zero(t, got.BackoffMax)
	require.Zero(t, got.BatchSize)
	require.Equal(t, tn, honoured(tn, supervisor.Capabilities{Tuning: supervisor.TuningVariables()}))
}

func TestScenarioValidation(t *testing.T) {
	s := Scenario{Name: "x", Description: "d", Instances: 1, Events: 1, Tuning: DefaultTuning()}
	require.NoError(t, s.Validate())
	bad := s
	bad.Name = "Bad Name"
	require.ErrorContains(t, bad.Validate(), "lower-case letters")
	bad = s
	bad.Tuning.Lease = 0
	bad.Tuning.MaxAttempts = 0
	err := bad.Validate()
	require.ErrorContains(t, err, "lease must be > 0")
	require.ErrorContains(t, err, "max attempts must be >= 1")

	good := s
	good.Exercises = []string{"I6", "I7"}
	good.Waived = map[string]string{"I2": "the outage outlasts the retry budget"}
	require.NoError(t, good.Validate())
	for _, c := range []struct {
		exercises []string
		waived    map[string]string
		want      string
	}{
		{[]string{"I11"}, nil, `exercises "I11": not an invariant id`},
		{[]string{"I6", "I6"}, nil, "exercises I6 twice"},
		{[]string{"I2"}, map[string]string{"I2": "too long an outage"}, "exercises I2 and waives it"},
		{nil, map[string]string{"i2": "lower case"}, `waives "i2": not an invariant id`},
	} {
		bad = s
		bad.Exercises, bad.Waived = c.exercises, c.waived
		require.ErrorContains(t, bad.Validate(), c.want)
	}
}

func TestDrainBudgetCoversLeaseAndBackoff(t *testing.T) {
	s := Scenario{Tuning: DefaultTuning()}
	require.Greater(t, s.drainBudget(), s.Tuning.Lease.D()+s.Tuning.BackoffMax.D())
	s.Drain = 3 * time.Second
	require.Equal(t, 3*time.Second, s.drainBudget())
}

// A drain stops at its deadline when the open events stopped falling, goes
// on past it while they keep falling, and never past drainCap.
func TestDrainWaitsOnlyWhileEventsFall(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	budget, stall := 10*time.Second, 3*time.Second

	stuck := newDrainWatch(t0, budget, stall)
	for s := 0.0; s <= 10; s++ {
		more, _ := stuck.observe(at(s), 50)
		require.True(t, more, "before the deadline, at %vs", s)
	}
	more, _ := stuck.observe(at(10.5), 50)
	require.False(t, more, "stuck since the start: stop at the deadline")

	falling := newDrainWatch(t0, budget, stall)
	open := 100
	for s := 0.0; s <= 10; s++ {
		falling.observe(at(s), open)
		open -= 5
	}
	more, extended := falling.observe(at(10.5), open)
	require.True(t, more, "still falling at the deadline")
	require.True(t, extended, "the first step past the deadline says so")
	more, extended = falling.observe(at(11), open-1)
	require.True(t, more)
	require.False(t, extended, "said once")
	more, _ = falling.observe(at(14.5), open-1)
	require.False(t, more, "no fall for longer than the stall window")

	slow := newDrainWatch(t0, budget, stall)
	for s, n := 0.0, 100000; ; s, n = s+1, n-1 {
		more, _ := slow.observe(at(s), n)
		if !more {
			require.Greater(t, at(s), t0.Add(budget+drainCap), "stopped at the cap, not before")
			require.LessOrEqual(t, at(s), t0.Add(budget+drainCap+time.Second))
			break
		}
	}
}
