package main

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain closes the private MariaDB that init's database tests share.
func TestMain(m *testing.M) { localtest.Main(m) }
