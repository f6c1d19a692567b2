package store_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/store"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// precisions reads each column's precision through st.
func precisions(t *testing.T, st store.Store, db *sql.DB, table string, cols ...string) []int {
	t.Helper()
	var out []int
	for _, c := range cols {
		p, err := st.TimePrecision(context.Background(), db, table, c)
		require.NoError(t, err, c)
		out = append(out, p)
	}
	return out
}

// wholeSeconds alters each column to whole seconds through st.
func wholeSeconds(t *testing.T, st store.Store, db *sql.DB, table string, cols ...string) {
	t.Helper()
	for _, c := range cols {
		stmt, err := st.WholeSeconds(context.Background(), db, table, c)
		require.NoError(t, err, c)
		_, err = db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
}

// On MariaDB the columns keep their type, nullability, default and ON
// UPDATE at precision 0, and a fraction written is cut.
func TestWholeSecondsOnMariaDB(t *testing.T) {
	db, _ := localtest.MySQL(t)
	_, err := db.Exec("CREATE TABLE `outbox` (id BIGINT PRIMARY KEY, " +
		"a DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), " +
		"b DATETIME(6) NULL, c TIMESTAMP(3) NULL DEFAULT NULL, d DATETIME(6) NOT NULL DEFAULT '2026-01-01 00:00:00', e VARCHAR(10))")
	require.NoError(t, err)
	cols := []string{"a", "b", "c", "d"}
	require.Equal(t, []int{6, 6, 3, 6}, precisions(t, store.MySQL, db, "outbox", cols...))
	_, err = store.MySQL.TimePrecision(context.Background(), db, "outbox", "e")
	require.ErrorContains(t, err, "column outbox.e is varchar(10), not a DATETIME or TIMESTAMP")
	_, err = store.MySQL.TimePrecision(context.Background(), db, "outbox", "nope")
	require.ErrorContains(t, err, "column outbox.nope is not in the current database")

	wholeSeconds(t, store.MySQL, db, "outbox", cols...)
	require.Equal(t, []int{0, 0, 0, 0}, precisions(t, store.MySQL, db, "outbox", cols...))
	var typ, null, def, extra string
	require.NoError(t, db.QueryRow(`SELECT COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, EXTRA FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox' AND COLUMN_NAME = 'a'`).Scan(&typ, &null, &def, &extra))
	require.Equal(t, []string{"datetime", "NO", "current_timestamp()", "on update current_timestamp()"}, []string{typ, null, def, extra})
	require.NoError(t, db.QueryRow(`SELECT COLUMN_TYPE, COLUMN_DEFAULT FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox' AND COLUMN_NAME = 'd'`).Scan(&typ, &def))
	require.Equal(t, []string{"datetime", "'2026-01-01 00:00:00'"}, []string{typ, def})

	_, err = db.Exec("INSERT INTO `outbox` (id, b) VALUES (1, '2026-12-31 23:59:59.7')")
	require.NoError(t, err)
	var b time.Time
	require.NoError(t, db.QueryRow("SELECT b FROM `outbox` WHERE id = 1").Scan(&b))
	require.Equal(t, "2026-12-31 23:59:59", b.Format(time.DateTime), "MariaDB cuts the fraction")
}

// On PostgreSQL the columns become timestamp(0) of their zone kind with
// their default, and a fraction written is rounded.
func TestWholeSecondsOnPostgreSQL(t *testing.T) {
	db, _ := localtest.Postgres(t)
	_, err := db.Exec(`CREATE TABLE outbox (id BIGINT PRIMARY KEY, a timestamptz NOT NULL DEFAULT now(), b timestamp(3), e text)`)
	require.NoError(t, err)
	require.Equal(t, []int{6, 3}, precisions(t, store.Postgres, db, "outbox", "a", "b"))
	_, err = store.Postgres.TimePrecision(context.Background(), db, "outbox", "e")
	require.ErrorContains(t, err, "column outbox.e is text, not a timestamp")

	wholeSeconds(t, store.Postgres, db, "outbox", "a", "b")
	require.Equal(t, []int{0, 0}, precisions(t, store.Postgres, db, "outbox", "a", "b"))
	_, err = db.Exec(`INSERT INTO outbox (id, b) VALUES (1, '2026-12-31 23:59:59.7')`)
	require.NoError(t, err)
	var a, b time.Time
	require.NoError(t, db.QueryRow(`SELECT a, b FROM outbox WHERE id = 1`).Scan(&a, &b))
	require.Equal(t, "2027-01-01 00:00:00", b.Format(time.DateTime), "PostgreSQL rounds the fraction")
	require.Zero(t, a.Nanosecond(), "the default now() is kept, in whole seconds")
}
