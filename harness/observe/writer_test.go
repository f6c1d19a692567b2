package observe_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// asUser creates a MySQL user with all privileges on dsn's database (dropped
// at cleanup) and opens a pool connected as it.
func asUser(t *testing.T, admin *sql.DB, dsn, user string) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	exec(t, admin, "CREATE USER '"+user+"'@'%' IDENTIFIED BY 'pw-"+user+"'")
	t.Cleanup(func() { _, _ = admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	exec(t, admin, "GRANT ALL PRIVILEGES ON `"+cfg.DBName+"`.* TO '"+user+"'@'%'")
	cfg.User, cfg.Passwd = user, "pw-"+user
	db, err := sql.Open("mysql", cfg.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Two instances connected as two users: the history names which one wrote
// each change, and the harness's own writes as the harness's.
func TestTriggersRecordTheWriter(t *testing.T) {
	m := schema.Reference()
	admin, dsn := localtest.MySQLWith(t, m.DDL...)
	ctx := localtest.Context(t)
	require.NoError(t, observe.InstallTriggers(ctx, admin, m))
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	u1, u2 := "oct"+hex.EncodeToString(b)+"_d1", "oct"+hex.EncodeToString(b)+"_d2"
	d1, d2 := asUser(t, admin, dsn, u1), asUser(t, admin, dsn, u2)

	exec(t, admin, "INSERT INTO ai_jobs (id, queue_name, status) VALUES ('j1', 'ai-default', 'created')")
	exec(t, admin, `INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES ('ai.job.enqueue', 'j1', '{"jobId":"j1"}')`)
	exec(t, d1, `UPDATE outbox_events SET status = 'processing', attempts = attempts + 1, locked_by = 'd1',
		lock_token = 'tok1', locked_until = NOW(6) + INTERVAL 30 SECOND WHERE id = 1`)
	exec(t, d2, `UPDATE outbox_events SET status = 'pending', lock_token = NULL, locked_by = NULL, locked_until = NULL WHERE id = 1`)

	ts, err := observe.ReadTransitions(ctx, admin, m, 0)
	require.NoError(t, err)
	require.Len(t, ts, 4)
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	raw := []string{ts[0].Writer, ts[1].Writer, ts[2].Writer, ts[3].Writer}
	require.Equal(t, []string{cfg.User, cfg.User, u1, u2}, raw, "ReadTransitions gives the MySQL user, without its host")

	observe.AttributeWriters(ts, map[string]string{cfg.User: history.WriterHarness, u1: "d1", u2: "d2"})
	require.Equal(t, []string{history.WriterHarness, history.WriterHarness, "d1", "d2"},
		[]string{ts[0].Writer, ts[1].Writer, ts[2].Writer, ts[3].Writer})

	// Without slot users a user tells nothing: no writer at all.
	observe.AttributeWriters(ts, nil)
	for _, tr := range ts {
		require.Empty(t, tr.Writer)
	}
}
