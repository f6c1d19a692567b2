package runner

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain fails the package when a run leaves a goroutine behind (the
// nemesis, traps, tickers, the observer and the consumer it starts).
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }
