package localtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A slot is held until released: a second taker waits (and gives up with
// its context), then gets it once the first lets go.
func TestSlotsAreExclusiveAcrossTakers(t *testing.T) {
	dir := t.TempDir()
	release, err := takeSlot(context.Background(), dir, 1)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*slotPoll)
	defer cancel()
	_, err = takeSlot(ctx, dir, 1)
	require.ErrorContains(t, err, "no end-to-end run slot of 1 came free")
	second, err := takeSlot(context.Background(), dir, 2)
	require.NoError(t, err, "a second slot is free")
	got := make(chan error, 1)
	go func() {
		r, err := takeSlot(context.Background(), dir, 2)
		if err == nil {
			r()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("a third taker got a slot while both were held: %v", err)
	case <-time.After(3 * slotPoll):
	}
	release()
	require.NoError(t, <-got)
	second()
}

func TestSlotCountNamesWhatToFix(t *testing.T) {
	t.Setenv(SlotsEnv, "")
	n, err := slotCount()
	require.NoError(t, err)
	require.Greater(t, n, 1)
	t.Setenv(SlotsEnv, "3")
	n, err = slotCount()
	require.NoError(t, err)
	require.Equal(t, 3, n)
	for _, bad := range []string{"0", "two", "-1"} {
		t.Setenv(SlotsEnv, bad)
		_, err = slotCount()
		require.ErrorContains(t, err, "OUTBOXCHAOS_E2E_SLOTS=\""+bad+"\": want a whole number")
	}
}
