package runner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReplayCommandQuotesOnlyWhatAShellWouldSplit(t *testing.T) {
	require.Equal(t, "outboxchaos run --scenario zombie --adapter mutant:no-jobid --seed 42 --out runs/x/zombie",
		ReplayCommand("zombie", "mutant:no-jobid", 42, "runs/x/zombie"))
	require.Equal(t, `outboxchaos run --scenario baseline --adapter '/my dir/it'\''s.yaml' --seed -3 --out ''`,
		ReplayCommand("baseline", "/my dir/it's.yaml", -3, ""))
}
