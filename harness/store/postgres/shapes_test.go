package postgres_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/store/postgres"
)

// The shapes of issue 22 on PostgreSQL, recorded by the triggers and
// derived by harness/model: each gives the canonical transitions that
// harness/observe's shapes_test.go gives on MariaDB.

// shaped is a shape's run: the raw records, the canonical outbox
// transitions and the final rows.
type shaped struct {
	raw   []history.Transition
	got   []brief
	final []history.OutboxRow
}

// derived installs the triggers on a database holding m's DDL, runs
// writes, and derives what the checkers read.
func derived(t *testing.T, m schema.Mapping, events []history.Event, writes func(db *sql.DB)) shaped {
	t.Helper()
	require.NoError(t, m.Validate())
	db, _ := withSchema(t, m.DDL...)
	ctx := localtest.Context(t)
	require.NoError(t, postgres.InstallTriggers(ctx, db, m))
	writes(db)
	raw, err := postgres.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	ts, err := model.Derive(m, events, raw)
	require.NoError(t, err)
	rows, err := postgres.ScanOutboxRows(ctx, db, m)
	require.NoError(t, err)
	var out []brief
	for _, tr := range ts {
		if tr.Table == history.TableOutbox {
			out = append(out, brief{tr.Table, tr.Key, tr.Op, tr.OldStatus, tr.NewStatus})
		}
	}
	return shaped{raw: raw, got: out, final: model.DeriveFinal(m, events, ts, rows)}
}

func TestTimestampStatesAreDerivedAtEachWrite(t *testing.T) {
	m := schema.Mapping{
		DDL: []string{"CREATE TABLE msgs (id uuid PRIMARY KEY, payload jsonb NOT NULL, " +
			"locked_until timestamptz NOT NULL DEFAULT '-infinity', processed_at timestamptz NULL, " +
			"abandoned_at timestamp NULL, started_attempts integer NOT NULL DEFAULT 0)"},
		Outbox: schema.Outbox{Table: "msgs", ID: "id", Payload: "payload", Attempts: "started_attempts",
			LockedUntil: "locked_until", IDType: schema.KeyText},
		States: schema.States{Published: "processed_at IS NOT NULL", Failed: "abandoned_at IS NOT NULL",
			Claimed: "locked_until > clock_timestamp()"},
	}
	const a, b = "0b7e9a52-1111-4c4c-8d8d-000000000001", "0b7e9a52-1111-4c4c-8d8d-000000000002"
	events := []history.Event{{ID: 1, Row: a, JobID: "m1"}, {ID: 2, Row: b, JobID: "m2"}}
	s := derived(t, m, events, func(db *sql.DB) {
		exec(t, db, `INSERT INTO msgs (id, payload) VALUES ($1, '{"jobId":"m1"}'), ($2, '{"jobId":"m2"}')`, a, b)
		// a: claimed, its lease runs out, claimed again, published.
		exec(t, db, "UPDATE msgs SET locked_until = clock_timestamp() + interval '50 milliseconds', started_attempts = started_attempts + 1 WHERE id = $1", a)
		waitLeaseOut(t, db, a)
		exec(t, db, "UPDATE msgs SET locked_until = clock_timestamp() + interval '10 seconds', started_attempts = started_attempts + 1 WHERE id = $1", a)
		exec(t, db, "UPDATE msgs SET processed_at = clock_timestamp() WHERE id = $1", a)
		// b: claimed and abandoned.
		exec(t, db, "UPDATE msgs SET locked_until = clock_timestamp() + interval '10 seconds', started_attempts = 1 WHERE id = $1", b)
		exec(t, db, "UPDATE msgs SET abandoned_at = localtimestamp WHERE id = $1", b)
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
	}, s.got)
	require.Equal(t, a, s.raw[0].Key, "a uuid key is recorded as its text")
	require.Equal(t, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), *s.raw[0].LockedUntil, "-infinity reads as the earliest time")
	require.Len(t, s.final, 2)
	require.Equal(t, int64(1), s.final[0].ID)
	require.Equal(t, a, s.final[0].Row)
	require.Equal(t, history.StatusPublished, s.final[0].Status)
	require.Equal(t, 2, s.final[0].Attempts)
	require.Equal(t, history.StatusFailed, s.final[1].Status)
}

// waitLeaseOut polls until row id's lease has run out on the database
// clock.
func waitLeaseOut(t *testing.T, db *sql.DB, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		var out bool
		require.NoError(t, db.QueryRow("SELECT locked_until <= clock_timestamp() FROM msgs WHERE id = $1", id).Scan(&out))
		return out
	}, 10*time.Second, 5*time.Millisecond)
}

func TestDeletionAndDeadLetterAreFinalizes(t *testing.T) {
	m := schema.Mapping{
		DDL: []string{
			"CREATE TABLE relay (id bigserial PRIMARY KEY, payload text NOT NULL, lease_owner text NULL, lease_until timestamptz NULL, tries integer NOT NULL DEFAULT 0)",
			"CREATE TABLE relay_dead (id bigint PRIMARY KEY, payload text NOT NULL, reason text)",
		},
		Outbox: schema.Outbox{Table: "relay", ID: "id", Payload: "payload", LockedBy: "lease_owner", LockedUntil: "lease_until", Attempts: "tries"},
		States: schema.States{Deleted: schema.DeletedPublished, DeadLetter: &schema.DeadLetter{Table: "relay_dead", ID: "id"},
			Claimed: "lease_until > now()"},
	}
	events := []history.Event{{ID: 1, JobID: "m1"}, {ID: 2, JobID: "m2"}, {ID: 3, JobID: "m3"}}
	s := derived(t, m, events, func(db *sql.DB) {
		exec(t, db, `INSERT INTO relay (payload) VALUES ('{"jobId":"m1"}'), ('{"jobId":"m2"}'), ('{"jobId":"m3"}')`)
		exec(t, db, "UPDATE relay SET lease_owner = 'd1', lease_until = now() + interval '10 seconds', tries = 1 WHERE id IN (1, 2)")
		exec(t, db, "DELETE FROM relay WHERE id = 1")
		exec(t, db, "INSERT INTO relay_dead (id, payload, reason) SELECT id, payload, 'poison' FROM relay WHERE id = 2")
		exec(t, db, "DELETE FROM relay WHERE id = 2")
	})
	require.Equal(t, []brief{
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "2", "insert", "", "pending"},
		{"outbox", "3", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "processing"},
		{"outbox", "2", "update", "pending", "processing"},
		{"outbox", "1", "delete", "processing", "published"},
		{"outbox", "2", "delete", "processing", "failed"},
	}, s.got)
	require.Equal(t, []string{history.StatusPublished, history.StatusFailed, history.StatusPending},
		[]string{s.final[0].Status, s.final[1].Status, s.final[2].Status})
	del := s.raw[len(s.raw)-1]
	require.Equal(t, "delete", del.Op)
	require.Equal(t, "d1", del.LockedBy, "a delete records the row as it was")
	require.JSONEq(t, `{"id": 2, "payload": "{\"jobId\":\"m2\"}", "lease_owner": "d1", "tries": 1}`,
		onlyKeys(t, del.OldImage, "id", "payload", "lease_owner", "tries"))
}

func TestCursorPublishesOnlyWhatHadCommitted(t *testing.T) {
	m := schema.Mapping{
		DDL: []string{
			`CREATE TABLE messages ("offset" bigserial PRIMARY KEY, uuid uuid NOT NULL DEFAULT gen_random_uuid(), payload jsonb NOT NULL)`,
			"CREATE TABLE offsets (consumer_group text PRIMARY KEY, offset_acked bigint NOT NULL)",
		},
		Outbox: schema.Outbox{Table: "messages", ID: "offset", Payload: "payload", MessageID: "uuid"},
		States: schema.States{Cursor: &schema.Cursor{Table: "offsets", Column: "offset_acked", GroupColumn: "consumer_group", Group: "relay"}},
	}
	now := time.Now().UTC()
	events := []history.Event{{ID: 1, JobID: "m1"}, {ID: 2, JobID: "m2"},
		// 3 was held open: its COMMIT was sent only after the cursor had passed it.
		{ID: 3, JobID: "m3", Committing: now.Add(time.Hour)}, {ID: 4, JobID: "m4"}}
	s := derived(t, m, events, func(db *sql.DB) {
		for i := 1; i <= 4; i++ {
			exec(t, db, `INSERT INTO messages (payload) VALUES (jsonb_build_object('jobId', 'm' || $1::int))`, i)
		}
		exec(t, db, "INSERT INTO offsets VALUES ('other', 4)")
		exec(t, db, "INSERT INTO offsets VALUES ('relay', 2)")
		exec(t, db, "UPDATE offsets SET offset_acked = 4 WHERE consumer_group = 'relay'")
	})
	require.Equal(t, []brief{
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "2", "insert", "", "pending"},
		{"outbox", "3", "insert", "", "pending"},
		{"outbox", "4", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "published"},
		{"outbox", "2", "update", "pending", "published"},
		{"outbox", "4", "update", "pending", "published"},
	}, s.got, "the other group's cursor publishes nothing, and 3 is skipped")
	require.Equal(t, history.StatusPending, s.final[2].Status)
	require.Equal(t, history.StatusPublished, s.final[3].Status)
}

func TestIntegerStatusesAndBinaryKeys(t *testing.T) {
	m := schema.Mapping{
		DDL: []string{"CREATE TABLE outbox (id bytea PRIMARY KEY, body bytea NOT NULL, state smallint NOT NULL DEFAULT 0, worker text NULL, lease timestamp NULL)"},
		Outbox: schema.Outbox{Table: "outbox", ID: "id", Payload: "body", Status: "state", LockedBy: "worker", LockedUntil: "lease",
			IDType: schema.KeyBinary},
		OutboxStatus: map[string]string{"0": "pending", "1": "processing", "2": "published", "3": "failed"},
	}
	const hexKey = "0190f3c2a1b27c3d8e4f5a6b7c8d9e0f"
	events := []history.Event{{ID: 1, Row: hexKey, JobID: "m1"}}
	s := derived(t, m, events, func(db *sql.DB) {
		exec(t, db, `INSERT INTO outbox (id, body) VALUES (decode($1, 'hex'), convert_to('{"jobId":"m1"}', 'UTF8'))`, hexKey)
		exec(t, db, "UPDATE outbox SET state = 1, worker = 'd1', lease = '2030-01-02 03:04:05.5' WHERE id = decode($1, 'hex')", hexKey)
		exec(t, db, "UPDATE outbox SET state = 2 WHERE id = decode($1, 'hex')", hexKey)
	})
	require.Equal(t, []brief{
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "processing"},
		{"outbox", "1", "update", "processing", "published"},
	}, s.got)
	require.Equal(t, history.StatusPublished, s.final[0].Status)
	require.Equal(t, hexKey, s.final[0].Row)
	claim := s.raw[1]
	require.Equal(t, hexKey, claim.Key, "a bytea key is recorded in lower-case hex")
	require.Equal(t, time.Date(2030, 1, 2, 3, 4, 5, 500000000, time.UTC), *claim.LockedUntil, "a timestamp without time zone reads as UTC")
	require.JSONEq(t, `{"id": "`+hexKey+`", "body": "7b226a6f624964223a226d31227d", "state": 1, "lease": "2030-01-02 03:04:05.500000"}`,
		onlyKeys(t, claim.Image, "id", "body", "state", "lease"), "bytea in hex and times in UTC, as MySQL's images")
}
