package runner

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/store"
	"github.com/outboxchaos/outboxchaos/harness/workload"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

func TestNarrowStatementPerStore(t *testing.T) {
	got, err := narrowStatement(store.NameMySQL, "outbox_events", "last_error", 48)
	require.NoError(t, err)
	require.Equal(t, "ALTER TABLE `outbox_events` MODIFY `last_error` VARCHAR(48) NULL", got)
	got, err = narrowStatement(store.NamePostgres, "app.outbox", "err", 48)
	require.NoError(t, err)
	require.Equal(t, `ALTER TABLE "app"."outbox" ALTER COLUMN "err" TYPE VARCHAR(48)`, got)
	_, err = narrowStatement("sqlite", "t", "c", 48)
	require.ErrorContains(t, err, "cannot narrow")
}

func TestScenarioLastErrorWidthIsBounded(t *testing.T) {
	s := Scenario{Name: "x", Description: "x", Instances: 1, Events: 1, Mix: workload.Mix{Valid: 1}, Tuning: DefaultTuning(), LastErrorWidth: -1}
	require.ErrorContains(t, s.Validate(), "last_error width -1")
	s.LastErrorWidth = 2000
	require.ErrorContains(t, s.Validate(), "want 1..1024")
}

func TestFailureWriteNeedsALastErrorColumn(t *testing.T) {
	s := Scenario{Needs: []Needs{NeedLastError}}
	require.Empty(t, Missing(s, shapedAdapter{m: schema.Reference()}, nil))
	m := schema.Reference()
	m.Outbox.LastError = ""
	require.Contains(t, Missing(s, shapedAdapter{m: m}, nil), "maps no last_error column")
}

// The premise of failure-write, on the private MariaDB: once narrowed, the
// column refuses a reason that quotes a failure-write kind's queue name
// (1406, Data too long), refuses that reason cut by bytes inside a
// character (1366, Incorrect string value), and takes it fitted.
func TestNarrowedLastErrorRefusesWhatDoesNotFit(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the private MariaDB")
	}
	db, _ := localtest.MySQLWith(t,
		"CREATE TABLE outbox_events (id BIGINT PRIMARY KEY, last_error VARCHAR(1024) NULL) DEFAULT CHARSET = utf8mb4",
		"INSERT INTO outbox_events (id) VALUES (1)")
	stmt, err := narrowStatement(store.NameMySQL, "outbox_events", "last_error", 48)
	require.NoError(t, err)
	_, err = db.Exec(stmt)
	require.NoError(t, err)
	write := func(text string) error {
		_, err := db.Exec("UPDATE outbox_events SET last_error = ? WHERE id = 1", text)
		return err
	}
	number := func(err error) uint16 {
		var me *mysql.MySQLError
		require.ErrorAs(t, err, &me)
		return me.Number
	}
	for _, q := range []string{workload.LongQueue, workload.MultibyteQueue} {
		text := fmt.Sprintf("queue_not_allowed: queue %q is not allowed", q)
		require.Equal(t, uint16(1406), number(write(text)), "the whole reason quoting %s", q)
		fitted := dispatchkit.FitError(text, 48)
		require.NoError(t, write(fitted))
		var got string
		require.NoError(t, db.QueryRow("SELECT last_error FROM outbox_events WHERE id = 1").Scan(&got))
		require.Equal(t, fitted, got)
	}
	text := fmt.Sprintf("queue_not_allowed: queue %q", workload.MultibyteQueue)
	split := 0
	for cut := 40; cut <= 48; cut++ {
		if utf8.ValidString(text[:cut]) {
			require.NoError(t, write(text[:cut]), "a cut of %d bytes on a character boundary", cut)
			continue
		}
		split++
		require.Equal(t, uint16(1366), number(write(text[:cut])), "a cut of %d bytes inside a character", cut)
	}
	require.GreaterOrEqual(t, split, 4, "most byte cuts of the multibyte name split a character")
}
