package reference_test

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain closes the shared private MariaDB when the tests end, and fails
// the package when the dispatcher leaves a goroutine of its run loop
// (claimers, publishers, the health probe, the metrics server) running
// after its tests.
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }
