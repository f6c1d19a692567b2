package workload_test

import (
	"database/sql"
	"os"
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// TestMain fails the package when a producer or a consumer leaves a
// goroutine running.
func TestMain(m *testing.M) {
	if mode := os.Getenv(producerModeVar); mode != "" {
		os.Exit(runTestProducer(mode))
	}
	localtest.MainNoLeaks(m)
}

// referenceDB returns a fresh database holding the contract's schema.
func referenceDB(t *testing.T) *sql.DB {
	t.Helper()
	db, _ := localtest.MySQLWith(t, schema.Reference().DDL...)
	return db
}
