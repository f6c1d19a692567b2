package runner

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain fails the package when a test leaves a goroutine behind (a
// run's tickers, the observer and the consumer it starts).
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }
