package runner

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

func TestMain(m *testing.M) { localtest.Main(m) }
