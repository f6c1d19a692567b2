package observe_test

import (
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// withSchema returns a fresh database holding m's DDL.
func withSchema(t *testing.T, m schema.Mapping) *sql.DB {
	t.Helper()
	db, _ := localtest.MySQL(t)
	for _, stmt := range m.DDL {
		_, err := db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	return db
}
