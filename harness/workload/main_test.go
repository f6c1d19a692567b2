package workload_test

import (
	"database/sql"
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// TestMain fails the package when a producer or a consumer leaves a
// goroutine running.
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }

// referenceDB returns a fresh database holding the contract's schema.
func referenceDB(t *testing.T) *sql.DB {
	t.Helper()
	db, _ := localtest.MySQLWith(t, schema.Reference().DDL...)
	return db
}
