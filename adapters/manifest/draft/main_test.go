package draft

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain closes the private MariaDB that the database tests share.
func TestMain(m *testing.M) { localtest.Main(m) }
