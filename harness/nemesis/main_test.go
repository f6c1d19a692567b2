package nemesis

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain fails the package when a trap leaves a goroutine behind (its
// matcher, a reply delay lifted in the background), and closes the shared
// MariaDB the trap tests use.
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }
