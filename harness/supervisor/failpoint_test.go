package supervisor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/contract"
)

func TestFailpointEnvFormats(t *testing.T) {
	v, err := FailpointEnv(
		Crash(contract.AfterClaim),
		Crash(contract.AfterEnqueue).OnNth(3),
		SleepAt(contract.BeforeFinalizeCommit, 1500*time.Millisecond).WithProb(0.25),
		Failpoint{Name: contract.AfterFinalizeCommit, Action: ActionCrash, Trigger: TriggerAlways},
	)
	require.NoError(t, err)
	require.Equal(t, "after-claim=crash;after-enqueue=crash@nth:3;"+
		"before-finalize-commit=sleep(1.5s)@prob:0.25;after-finalize-commit=crash@always", v)

	v, err = FailpointEnv(Crash(contract.AfterClaim).WithProb(0.00001))
	require.NoError(t, err)
	require.Equal(t, "after-claim=crash@prob:0.00001", v, "no exponent notation")

	v, err = FailpointEnv()
	require.NoError(t, err)
	require.Equal(t, "", v)

	vars, err := FailpointVars(-42, Crash(contract.AfterEnqueue))
	require.NoError(t, err)
	require.Equal(t, map[string]string{EnvFailpoints: "after-enqueue=crash", EnvFailpointSeed: "-42"}, vars)
}

func TestFailpointEnvRejects(t *testing.T) {
	cases := map[string]struct {
		points []Failpoint
		want   string
	}{
		"unknown name":    {[]Failpoint{Crash("after-lunch")}, `unknown name`},
		"unknown action":  {[]Failpoint{{Name: contract.AfterClaim, Action: "explode"}}, `action "explode"`},
		"sleep zero":      {[]Failpoint{SleepAt(contract.AfterClaim, 0)}, "positive duration"},
		"crash with time": {[]Failpoint{{Name: contract.AfterClaim, Action: ActionCrash, Sleep: time.Second}}, "no sleep"},
		"nth zero":        {[]Failpoint{Crash(contract.AfterClaim).OnNth(0)}, "N >= 1"},
		"prob zero":       {[]Failpoint{Crash(contract.AfterClaim).WithProb(0)}, "0 < p <= 1"},
		"prob above one":  {[]Failpoint{Crash(contract.AfterClaim).WithProb(1.5)}, "0 < p <= 1"},
		"unknown trigger": {[]Failpoint{{Name: contract.AfterClaim, Action: ActionCrash, Trigger: "sometimes"}}, `trigger "sometimes"`},
		"always with nth": {[]Failpoint{{Name: contract.AfterClaim, Action: ActionCrash, Trigger: TriggerAlways, Nth: 2}}, "no nth"},
		"duplicate":       {[]Failpoint{Crash(contract.AfterClaim), Crash(contract.AfterClaim).OnNth(2)}, "given twice"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := FailpointEnv(c.points...)
			require.ErrorContains(t, err, c.want)
			_, err = FailpointVars(1, c.points...)
			require.Error(t, err)
		})
	}
}

func TestParseCrashLine(t *testing.T) {
	for line, want := range map[string]string{
		"failpoint after-enqueue: crash":             "after-enqueue",
		"failpoint after-claim: crash\r":             "after-claim",
		"  failpoint before-finalize-commit: crash ": "before-finalize-commit",
	} {
		got, ok := parseCrashLine(line)
		require.True(t, ok, line)
		require.Equal(t, want, got)
	}
	for _, line := range []string{
		"failpoint after-enqueue: sleep", "failpoint : crash", "failpoint a b: crash",
		"2026 failpoint after-enqueue: crash now", "crash", "",
	} {
		_, ok := parseCrashLine(line)
		require.False(t, ok, line)
	}
}
