package reference_test

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain closes the shared private MariaDB when the tests end.
func TestMain(m *testing.M) { localtest.Main(m) }
