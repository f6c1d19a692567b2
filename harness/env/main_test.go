package env

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain fails the package when a test leaves a goroutine running; the
// staging test runs a whole scenario (runner, supervisor, observers,
// consumer, fault proxy), so this also checks that runner.Run stops
// everything it started.
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }
