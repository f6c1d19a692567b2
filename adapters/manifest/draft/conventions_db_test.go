package draft

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// roomservice's start and build, as its manifest has them.
const (
	roomStart = "${WORK_DIR}/bin/roomdispatcher"
	roomBuild = "go build -o ${WORK_DIR}/bin/roomdispatcher ./adapters/examples/roomservice/cmd/roomdispatcher"
)

// room-service's dev database with last_error texts as its worker writes
// them ("retry N: ..." on a retryable row, a permanent reason on a failed
// one), and, for the second case, the texts of a dispatcher that writes
// its releases and recoveries too. Only pending rows with retry_count > 0
// count: the failed row and the untried pending one must not.
func TestProposesConventionsFromRoomServicesData(t *testing.T) {
	own := `INSERT INTO room_outbox (event_type, task_id, envelope, status, retry_count, last_error) VALUES
		('ai.job.enqueue','t1','{"jobId":"t1"}','retryable',1,'retry 1: add job: dial tcp 127.0.0.1:6379: connect: connection refused'),
		('ai.job.enqueue','t2','{"jobId":"t2"}','retryable',2,'retry 2: add job: i/o timeout'),
		('ai.job.enqueue','t3','{"jobId":"t3"}','pending',0,'released: never tried'),
		('bogus','t4','{"jobId":"t4"}','failed',0,'unknown_event_type: event type "bogus" is not ai.job.enqueue')`
	theirs := `INSERT INTO room_outbox (event_type, task_id, envelope, status, retry_count, last_error) VALUES
		('ai.job.enqueue','t1','{"jobId":"t1"}','retryable',1,'released: lease nearly over'),
		('ai.job.enqueue','t2','{"jobId":"t2"}','pending',3,'released: shutting down'),
		('ai.job.enqueue','t3','{"jobId":"t3"}','retryable',2,'lease expired, owner room-2')`
	for _, c := range []struct {
		name  string
		rows  []string
		want  history.Conventions
		shown string // the comment on the prefixes read as neither
	}{
		{"its own texts: retries only", []string{own}, history.Conventions{}, `"retry " (2 rows)`},
		{"with releases and recoveries", []string{own, theirs},
			history.Conventions{ReleaseErrors: []string{"released: "}, RecoveryErrors: []string{"lease expired, owner "}}, `"retry " (2 rows)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, dsn := roomServiceDatabase(t)
			for _, s := range c.rows {
				_, err := db.Exec(s)
				require.NoError(t, err)
			}
			out, res, err := write(t, t.TempDir(), Options{DSN: dsn, Start: roomStart, Build: roomBuild})
			require.NoError(t, err)
			a := loadAdapter(t, out)
			require.Equal(t, c.want, a.Conventions())
			require.Equal(t, "go-overlay", a.Capabilities().Clock, "a go build step")
			text := string(mustRead(t, out))
			require.Contains(t, text, "# seen too, read as neither a release nor a recovery (a retry's error?), so not declared: "+c.shown)
			require.Contains(t, text, "prefixes seen, to be confirmed")
			require.NotContains(t, text, "never tried", "a pending row never tried is no return to pending")
			require.NotContains(t, text, "unknown_event_type")
			if len(c.want.ReleaseErrors) > 0 {
				require.Contains(t, text, `last_error_prefixes: ["released: "]  # GUESS: "released: " on 2 rows reads as a release ("released")`)
				require.Contains(t, strings.Join(res.Attention, "\n"), `conventions.releases: "released: " was seen in the data`)
			} else {
				require.NotContains(t, text, "\nconventions:", "no convention the data did not show")
			}
		})
	}
}

// The Node.js example on the contract's own schema: its retries write
// "attempt N of M: ...", the releases of the dispatchers the conventions
// were first declared for write "released: ..."; node means faketime.
func TestProposesClockAndConventionsForTheNodeExample(t *testing.T) {
	db, dsn := localtest.MySQL(t)
	for _, s := range append(contract.SchemaStatements(),
		`INSERT INTO ai_jobs (id, queue_name, status) VALUES ('j1','ai-default','created'), ('j2','ai-default','queued'), ('j3','ai-bulk','running'), ('j4','ai-bulk','succeeded')`,
		`INSERT INTO outbox_events (event_type, aggregate_id, payload, status, attempts, last_error) VALUES
		   ('ai.job.enqueue','j1','{"jobId":"j1"}','pending',2,'attempt 2 of 8: connect ECONNREFUSED 127.0.0.1:6379'),
		   ('ai.job.enqueue','j1','{"jobId":"j1"}','pending',1,'released: lease nearly over'),
		   ('ai.job.enqueue','j2','{"jobId":"j2"}','processing',1,NULL),
		   ('ai.job.enqueue','j3','{"jobId":"j3"}','published',1,NULL),
		   ('bogus','j4','{"jobId":"j4"}','failed',1,'unknown_event_type: event type "bogus" is not ai.job.enqueue')`) {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
	out, _, err := write(t, t.TempDir(), Options{DSN: dsn, Start: "node main.js", Build: "node main.js --check"})
	require.NoError(t, err)
	a := loadAdapter(t, out)
	require.Equal(t, "faketime", a.Capabilities().Clock)
	require.Equal(t, history.Conventions{ReleaseErrors: []string{"released: "}}, a.Conventions())
	ref, got := schema.Reference(), a.Schema()
	require.Equal(t, ref.Outbox, got.Outbox)
	require.Equal(t, ref.Jobs, got.Jobs)
	require.Equal(t, ref.OutboxStatus, got.OutboxStatus)
	require.Equal(t, ref.JobStatus, got.JobStatus)
	text := string(mustRead(t, out))
	require.Contains(t, text, `clock: "faketime"  # GUESS: node reads the time through libc`)
	require.Contains(t, text, `"attempt " (1 row)`)
}

// A cursor's consumer group comes from the data when it holds one.
func TestReadsTheCursorGroupFromTheData(t *testing.T) {
	db, dsn := localtest.MySQL(t)
	ddl := string(mustRead(t, "testdata/shapes/cursor.sql"))
	stmts, err := schemaddl.SplitStatements(ddl)
	require.NoError(t, err)
	for _, s := range append(stmts, `INSERT INTO relay_offsets (consumer_group, offset_acked) VALUES ('billing-relay', 3)`) {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
	out, _, err := write(t, t.TempDir(), Options{DSN: dsn})
	require.NoError(t, err)
	got := loadSchema(t, out)
	require.Equal(t, &schema.Cursor{Table: "relay_offsets", Column: "offset_acked", GroupColumn: "consumer_group", Group: "billing-relay"}, got.States.Cursor)
	schemaSQL := string(mustRead(t, filepath.Join(filepath.Dir(out), "draft.schema.sql")))
	require.Contains(t, schemaSQL, "CREATE TABLE `relay_offsets`", "the offsets table is written with the outbox")
	require.Contains(t, string(mustRead(t, out)), "# conventions: none proposed: a cursor outbox's rows never go back to pending")

	_, err = db.Exec(`INSERT INTO relay_offsets (consumer_group, offset_acked) VALUES ('audit-relay', 1)`)
	require.NoError(t, err)
	out, _, err = write(t, t.TempDir(), Options{DSN: dsn})
	require.NoError(t, err)
	require.Contains(t, string(mustRead(t, out)), "EDIT: the data has the groups audit-relay, billing-relay: name the one your relay writes")
	requireFailsOnlyOn(t, out, []string{"schema.states.cursor"})
	_ = os.Remove(out)
}
