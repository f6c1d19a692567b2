package postgres_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// TestMain fails the package when a test leaves a goroutine running.
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }

// withSchema returns a fresh database holding ddl, and its URL.
func withSchema(t *testing.T, ddl ...string) (*sql.DB, string) {
	t.Helper()
	db, u := localtest.Postgres(t)
	for _, s := range ddl {
		exec(t, db, s)
	}
	return db, u
}

// reference is the contract's mapping over testdata/reference.sql.
func reference(t *testing.T) schema.Mapping {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.sql")
	require.NoError(t, err)
	m := schema.Reference()
	m.DDL = nil
	for _, s := range strings.Split(string(b), ";") {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		if s = strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			m.DDL = append(m.DDL, s)
		}
	}
	return m
}

func exec(t *testing.T, db interface {
	Exec(string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	_, err := db.Exec(q, args...)
	require.NoError(t, err, q)
}

// loginRole creates a login role with a password and every privilege a
// dispatcher has on the tables and sequences of schema public, and returns
// a pool connected as it to the database at dbURL. The role is dropped when
// the test ends.
func loginRole(t *testing.T, admin *sql.DB, dbURL, prefix string) (*sql.DB, string) {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	role, pass := prefix+"_"+hex.EncodeToString(b), "pw-"+hex.EncodeToString(b)
	exec(t, admin, `CREATE ROLE "`+role+`" LOGIN PASSWORD '`+pass+`'`)
	exec(t, admin, `GRANT ALL ON ALL TABLES IN SCHEMA public TO "`+role+`"`)
	exec(t, admin, `GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO "`+role+`"`)
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	u.User = url.UserPassword(role, pass)
	db, err := sql.Open("pgx", u.String())
	require.NoError(t, err)
	require.NoError(t, db.Ping())
	t.Cleanup(func() {
		_ = db.Close()
		for _, q := range []string{`DROP OWNED BY "` + role + `"`, `DROP ROLE "` + role + `"`} {
			if _, err := admin.Exec(q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	return db, role
}

// dbNow is the server's statement clock.
func dbNow(t *testing.T, db *sql.DB) time.Time {
	t.Helper()
	var now time.Time
	require.NoError(t, db.QueryRow("SELECT clock_timestamp()").Scan(&now))
	return now.UTC()
}

// brief is a transition without its sequence, time and times, for comparing.
type brief struct {
	Table, Row, Op, Old, New string
}

func briefs(ts []history.Transition) []brief {
	var out []brief
	for _, t := range ts {
		out = append(out, brief{t.Table, t.Key, t.Op, t.OldStatus, t.NewStatus})
	}
	return out
}

func jsonUnmarshal(b json.RawMessage, v any) error { return json.Unmarshal(b, v) }

// onlyKeys is the JSON object image with only the keys named.
func onlyKeys(t *testing.T, image json.RawMessage, keys ...string) string {
	t.Helper()
	var all map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(image, &all))
	out := map[string]json.RawMessage{}
	for _, k := range keys {
		out[k] = all[k]
	}
	b, err := json.Marshal(out)
	require.NoError(t, err)
	return string(b)
}
