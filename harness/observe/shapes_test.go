package observe_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// The shapes of issue 22, recorded by the triggers and derived by
// harness/model into canonical transitions: what each checker reads.

// derived installs the triggers, runs writes, and returns the canonical
// outbox transitions and final rows for events.
func derived(t *testing.T, m schema.Mapping, events []history.Event, writes func(exec func(q string, args ...any))) ([]brief, []history.OutboxRow) {
	t.Helper()
	require.NoError(t, m.Validate())
	db := withSchema(t, m)
	ctx := localtest.Context(t)
	require.NoError(t, observe.InstallTriggers(ctx, db, m))
	writes(func(q string, args ...any) { exec(t, db, q, args...) })
	raw, err := observe.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	ts, err := model.Derive(m, events, raw)
	require.NoError(t, err)
	rows, err := observe.ScanOutboxRows(ctx, db, m)
	require.NoError(t, err)
	var out []brief
	for _, tr := range ts {
		if tr.Table == history.TableOutbox {
			out = append(out, brief{tr.Table, tr.Key, tr.Op, tr.OldStatus, tr.NewStatus})
		}
	}
	return out, model.DeriveFinal(m, events, ts, rows)
}

func TestTimestampStatesAreDerivedAtEachWrite(t *testing.T) {
	m := schema.Mapping{
		DDL: []string{"CREATE TABLE msgs (id CHAR(36) NOT NULL PRIMARY KEY, payload JSON NOT NULL, " +
			"locked_until DATETIME(6) NOT NULL DEFAULT '1970-01-01 00:00:01', processed_at DATETIME(6) NULL, " +
			"abandoned_at DATETIME(6) NULL, started_attempts INT NOT NULL DEFAULT 0)"},
		Outbox: schema.Outbox{Table: "msgs", ID: "id", Payload: "payload", Attempts: "started_attempts",
			LockedUntil: "locked_until", IDType: schema.KeyText},
		States: schema.States{Published: "processed_at IS NOT NULL", Failed: "abandoned_at IS NOT NULL",
			Claimed: "locked_until > NOW(6)"},
	}
	const a, b = "0b7e9a52-1111-4c4c-8d8d-000000000001", "0b7e9a52-1111-4c4c-8d8d-000000000002"
	events := []history.Event{{ID: 1, Row: a, JobID: "m1"}, {ID: 2, Row: b, JobID: "m2"}}
	got, final := derived(t, m, events, func(x func(string, ...any)) {
		x(`INSERT INTO msgs (id, payload) VALUES (?, '{"jobId":"m1"}'), (?, '{"jobId":"m2"}')`, a, b)
		// a: claimed, its lease runs out, claimed again, published.
		x("UPDATE msgs SET locked_until = NOW(6) + INTERVAL 50000 MICROSECOND, started_attempts = started_attempts + 1 WHERE id = ?", a)
		time.Sleep(80 * time.Millisecond) // the lease runs out on the database clock
		x("UPDATE msgs SET locked_until = NOW(6) + INTERVAL 10 SECOND, started_attempts = started_attempts + 1 WHERE id = ?", a)
		x("UPDATE msgs SET processed_at = NOW(6) WHERE id = ?", a)
		// b: claimed and abandoned.
		x("UPDATE msgs SET locked_until = NOW(6) + INTERVAL 10 SECOND, started_attempts = 1 WHERE id = ?", b)
		x("UPDATE msgs SET abandoned_at = NOW(6) WHERE id = ?", b)
	})
	require.Equal(t, []brief{
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "2", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "processing"},
		// The expired lease reads as still held: the next claim takes it over.
		{"outbox", "1", "update", "processing", "processing"},
		{"outbox", "1", "update", "processing", "published"},
		{"outbox", "2", "update", "pending", "processing"},
		{"outbox", "2", "update", "processing", "failed"},
	}, got)
	require.Len(t, final, 2)
	require.Equal(t, int64(1), final[0].ID)
	require.Equal(t, a, final[0].Row)
	require.Equal(t, history.StatusPublished, final[0].Status)
	require.Equal(t, history.StatusFailed, final[1].Status)
}

func TestDeletionAndDeadLetterAreFinalizes(t *testing.T) {
	m := schema.Mapping{
		DDL: []string{
			"CREATE TABLE relay (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload TEXT NOT NULL, lease_owner VARCHAR(64) NULL, lease_until DATETIME(6) NULL, tries INT NOT NULL DEFAULT 0)",
			"CREATE TABLE relay_dead (id BIGINT PRIMARY KEY, payload TEXT NOT NULL, reason TEXT)",
		},
		Outbox: schema.Outbox{Table: "relay", ID: "id", Payload: "payload", LockedBy: "lease_owner", LockedUntil: "lease_until", Attempts: "tries"},
		States: schema.States{Deleted: schema.DeletedPublished, DeadLetter: &schema.DeadLetter{Table: "relay_dead", ID: "id"},
			Claimed: "lease_until > NOW(6)"},
	}
	events := []history.Event{{ID: 1, JobID: "m1"}, {ID: 2, JobID: "m2"}, {ID: 3, JobID: "m3"}}
	got, final := derived(t, m, events, func(x func(string, ...any)) {
		x(`INSERT INTO relay (payload) VALUES ('{"jobId":"m1"}'), ('{"jobId":"m2"}'), ('{"jobId":"m3"}')`)
		x("UPDATE relay SET lease_owner = 'd1', lease_until = NOW(6) + INTERVAL 10 SECOND, tries = 1 WHERE id IN (1, 2)")
		x("DELETE FROM relay WHERE id = 1")
		x("INSERT INTO relay_dead (id, payload, reason) SELECT id, payload, 'poison' FROM relay WHERE id = 2")
		x("DELETE FROM relay WHERE id = 2")
	})
	require.Equal(t, []brief{
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "2", "insert", "", "pending"},
		{"outbox", "3", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "processing"},
		{"outbox", "2", "update", "pending", "processing"},
		{"outbox", "1", "delete", "processing", "published"},
		{"outbox", "2", "delete", "processing", "failed"},
	}, got)
	require.Equal(t, []string{history.StatusPublished, history.StatusFailed, history.StatusPending},
		[]string{final[0].Status, final[1].Status, final[2].Status})
}

func TestCursorPublishesOnlyWhatHadCommitted(t *testing.T) {
	m := schema.Mapping{
		DDL: []string{
			"CREATE TABLE messages (`offset` BIGINT AUTO_INCREMENT PRIMARY KEY, uuid VARCHAR(36) NOT NULL, payload JSON NOT NULL)",
			"CREATE TABLE offsets (consumer_group VARCHAR(64) PRIMARY KEY, offset_acked BIGINT NOT NULL)",
		},
		Outbox: schema.Outbox{Table: "messages", ID: "offset", Payload: "payload", MessageID: "uuid"},
		States: schema.States{Cursor: &schema.Cursor{Table: "offsets", Column: "offset_acked", GroupColumn: "consumer_group", Group: "relay"}},
	}
	now := time.Now().UTC()
	events := []history.Event{{ID: 1, JobID: "m1"}, {ID: 2, JobID: "m2"},
		// 3 was held open: its COMMIT was sent only after the cursor had passed it.
		{ID: 3, JobID: "m3", Committing: now.Add(time.Hour)}, {ID: 4, JobID: "m4"}}
	got, final := derived(t, m, events, func(x func(string, ...any)) {
		for i := 1; i <= 4; i++ {
			x(`INSERT INTO messages (uuid, payload) VALUES (UUID(), JSON_OBJECT('jobId', CONCAT('m', ?)))`, i)
		}
		x("INSERT INTO offsets VALUES ('other', 4)")
		x("INSERT INTO offsets VALUES ('relay', 2)")
		x("UPDATE offsets SET offset_acked = 4 WHERE consumer_group = 'relay'")
	})
	require.Equal(t, []brief{
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "2", "insert", "", "pending"},
		{"outbox", "3", "insert", "", "pending"},
		{"outbox", "4", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "published"},
		{"outbox", "2", "update", "pending", "published"},
		{"outbox", "4", "update", "pending", "published"},
	}, got, "the other group's cursor publishes nothing, and 3 is skipped")
	require.Equal(t, history.StatusPending, final[2].Status)
	require.Equal(t, history.StatusPublished, final[3].Status)
}

func TestIntegerStatusesAndBinaryKeys(t *testing.T) {
	m := schema.Mapping{
		DDL: []string{"CREATE TABLE outbox (id BINARY(16) NOT NULL PRIMARY KEY, body BLOB NOT NULL, state TINYINT NOT NULL DEFAULT 0, worker VARCHAR(32) NULL, lease DATETIME(6) NULL)"},
		Outbox: schema.Outbox{Table: "outbox", ID: "id", Payload: "body", Status: "state", LockedBy: "worker", LockedUntil: "lease",
			IDType: schema.KeyBinary},
		OutboxStatus: map[string]string{"0": "pending", "1": "processing", "2": "published", "3": "failed"},
	}
	const hexKey = "0190f3c2a1b27c3d8e4f5a6b7c8d9e0f"
	events := []history.Event{{ID: 1, Row: hexKey, JobID: "m1"}}
	got, final := derived(t, m, events, func(x func(string, ...any)) {
		x(`INSERT INTO outbox (id, body) VALUES (UNHEX(?), '{"jobId":"m1"}')`, hexKey)
		x("UPDATE outbox SET state = 1, worker = 'd1', lease = NOW(6) + INTERVAL 5 SECOND WHERE id = UNHEX(?)", hexKey)
		x("UPDATE outbox SET state = 2 WHERE id = UNHEX(?)", hexKey)
	})
	require.Equal(t, []brief{
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "processing"},
		{"outbox", "1", "update", "processing", "published"},
	}, got)
	require.Equal(t, history.StatusPublished, final[0].Status)
	require.Equal(t, hexKey, final[0].Row)
}
