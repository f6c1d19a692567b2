package observe_test

import (
	"database/sql"
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// TestMain fails the package when a test leaves an observer, a watcher or
// a subscription goroutine running.
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }

// withSchema returns a fresh database holding m's DDL.
func withSchema(t *testing.T, m schema.Mapping) *sql.DB {
	t.Helper()
	db, _ := localtest.MySQLWith(t, m.DDL...)
	return db
}
