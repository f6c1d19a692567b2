package postgres_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/store/postgres"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// roomMapping is a foreign schema shaped like the room-service guide's,
// with mixed-case names (quoted in the DDL), an enum status and times
// without time zone.
func roomMapping() schema.Mapping {
	return schema.Mapping{
		DDL: []string{
			`CREATE TYPE room_state AS ENUM ('pending', 'delivering', 'delivered', 'retryable', 'failed')`,
			`CREATE TABLE "RoomJobs" ("JobKey" varchar(64) PRIMARY KEY, "TargetQueue" varchar(64) NOT NULL, "State" varchar(16) NOT NULL)`,
			`CREATE TABLE "RoomOutbox" ("EventId" bigserial PRIMARY KEY, "Topic" varchar(64) NOT NULL,
				"RoomJob" varchar(64) NOT NULL, "Body" text NOT NULL, "State" room_state NOT NULL,
				"RetryCount" integer NOT NULL DEFAULT 0, "NextRetryAt" timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
				"LockOwner" varchar(64) NULL, "LockUntil" timestamp NULL, "ErrorMessage" text NULL)`,
		},
		Outbox: schema.Outbox{Table: "RoomOutbox", ID: "EventId", EventType: "Topic", AggregateID: "RoomJob",
			Payload: "Body", Status: "State", Attempts: "RetryCount", AvailableAt: "NextRetryAt",
			LockedBy: "LockOwner", LockedUntil: "LockUntil", LastError: "ErrorMessage"},
		Jobs: schema.Jobs{Table: "RoomJobs", ID: "JobKey", Queue: "TargetQueue", Status: "State"},
		OutboxStatus: map[string]string{"pending": "pending", "delivering": "processing", "delivered": "published",
			"retryable": "pending", "failed": "failed"},
		JobStatus: map[string]string{"new": "created", "sent": "queued", "working": "running", "done": "succeeded"},
	}
}

func TestTriggersMapAForeignSchema(t *testing.T) {
	m := roomMapping()
	require.NoError(t, m.Validate())
	db, _ := withSchema(t, m.DDL...)
	ctx := localtest.Context(t)
	require.NoError(t, postgres.InstallTriggers(ctx, db, m))

	rec := history.NewRecorder(history.Meta{})
	p, err := workload.NewProducer(workload.ProducerConfig{DB: db, Schema: m, Queues: []string{"rooms"},
		Mix: workload.Mix{Valid: 1}, Rand: rand.New(rand.NewPCG(1, 1)), Recorder: rec, RunID: "room", Dialect: model.Postgres})
	require.NoError(t, err)
	require.NoError(t, p.Produce(ctx, 1))
	ev := rec.Snapshot().Events[0]

	exec(t, db, `UPDATE "RoomOutbox" SET "State" = 'delivering', "RetryCount" = 1, "LockOwner" = 'w1', "LockUntil" = localtimestamp WHERE "EventId" = $1`, ev.ID)
	exec(t, db, `UPDATE "RoomOutbox" SET "State" = 'retryable', "ErrorMessage" = 'timeout', "LockOwner" = NULL WHERE "EventId" = $1`, ev.ID)
	exec(t, db, `UPDATE "RoomOutbox" SET "State" = 'delivering', "RetryCount" = 2, "LockOwner" = 'w2' WHERE "EventId" = $1`, ev.ID)
	exec(t, db, `UPDATE "RoomOutbox" SET "State" = 'delivered' WHERE "EventId" = $1`, ev.ID)
	exec(t, db, `UPDATE "RoomJobs" SET "State" = 'sent' WHERE "JobKey" = $1`, ev.JobID)

	ts, err := postgres.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	row := "1"
	require.Equal(t, []brief{
		{"jobs", ev.JobID, "insert", "", "created"},
		{"outbox", row, "insert", "", "pending"},
		{"outbox", row, "update", "pending", "processing"},
		{"outbox", row, "update", "processing", "pending"},
		{"outbox", row, "update", "pending", "processing"},
		{"outbox", row, "update", "processing", "published"},
		{"jobs", ev.JobID, "update", "created", "queued"},
	}, briefs(ts))
	require.Equal(t, "timeout", ts[3].LastError)
	require.Equal(t, 2, ts[4].Attempts)
	require.Equal(t, "w2", ts[4].LockedBy)
	require.Empty(t, ts[4].LockToken, "the mapping names no lock token column")
	require.NotNil(t, ts[2].LockedUntil)
	require.NotNil(t, ts[2].AvailableAt)

	rows, err := postgres.ScanOutboxRows(ctx, db, m)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.Equal(t, history.OutboxRow{ID: ev.ID, Row: row, Type: ev.Type, JobID: ev.JobID, Status: history.StatusPublished,
		Attempts: 2, LastError: "timeout"}, rows[0])
	jobs, err := postgres.ScanJobs(ctx, db, m)
	require.NoError(t, err)
	require.Equal(t, []history.JobRow{{ID: ev.JobID, Queue: "rooms", Status: history.JobQueued}}, jobs)
}

func TestScanJobsWithoutAJobsTable(t *testing.T) {
	jobs, err := postgres.ScanJobs(localtest.Context(t), nil, schema.Mapping{})
	require.NoError(t, err)
	require.Empty(t, jobs)
}

func TestInstallTriggersRejectsBadMappings(t *testing.T) {
	db, _ := withSchema(t, roomMapping().DDL...)
	exec(t, db, `CREATE VIEW room_view AS SELECT * FROM "RoomOutbox"`)
	ctx := localtest.Context(t)

	for _, tc := range []struct {
		name  string
		spoil func(*schema.Mapping)
		want  string
	}{
		{"missing column", func(m *schema.Mapping) { m.Outbox.LockToken = "lock_token" },
			"column RoomOutbox.lock_token named by the schema mapping does not exist: fix the mapping or the DDL"},
		{"column case", func(m *schema.Mapping) { m.Outbox.LockedBy = "lockowner" },
			"column RoomOutbox.lockowner named by the schema mapping does not exist, but LockOwner does"},
		{"table case", func(m *schema.Mapping) { m.Jobs.Table = "roomjobs" }, "table roomjobs not found, but RoomJobs is"},
		{"not a time", func(m *schema.Mapping) { m.Outbox.LockedUntil = "ErrorMessage" }, "must be timestamp or timestamptz"},
		{"not an integer", func(m *schema.Mapping) { m.Outbox.Attempts = "Topic" }, "must be smallint, integer or bigint"},
		{"no table", func(m *schema.Mapping) { m.Jobs.Table = "nowhere" }, "table nowhere not found in the search_path"},
		{"a schema", func(m *schema.Mapping) { m.Jobs.Table = "public.RoomJobs" }, `table "public.RoomJobs" names a schema`},
		{"a view", func(m *schema.Mapping) { m.Outbox.Table = "room_view" }, "room_view is not a table"},
		{"same table", func(m *schema.Mapping) {
			m.Jobs = schema.Jobs{Table: "RoomOutbox", ID: "EventId", Queue: "Topic", Status: "State"}
		},
			"outbox and jobs are both table RoomOutbox"},
		{"invalid", func(m *schema.Mapping) { m.Outbox.Payload = "" }, "outbox.payload"},
		{"MySQL predicate", func(m *schema.Mapping) { statesForm(m, "LockUntil > NOW(6)") },
			`states.claimed: the predicate "LockUntil > NOW(6)" does not run on PostgreSQL over table RoomOutbox`},
		{"not a condition", func(m *schema.Mapping) { statesForm(m, "LockUntil") }, "states.claimed"},
		{"another table's column", func(m *schema.Mapping) { statesForm(m, `"RoomOutbox"."LockUntil" > now()`) },
			"states.claimed: the predicate"},
		{"a comment", func(m *schema.Mapping) { statesForm(m, "LockUntil > now() -- held") }, "states.claimed: predicate"},
	} {
		bad := roomMapping()
		tc.spoil(&bad)
		require.ErrorContains(t, postgres.InstallTriggers(ctx, db, bad), tc.want, tc.name)
		var schemaMade bool
		require.NoError(t, db.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'outboxchaos')").Scan(&schemaMade))
		require.False(t, schemaMade, "%s: a refused mapping installs nothing", tc.name)
	}
	good := roomMapping()
	statesForm(&good, `"LockUntil" > localtimestamp`)
	require.NoError(t, postgres.InstallTriggers(ctx, db, good), "the states form over an enum and quoted names")
}

// statesForm turns the room mapping into the states form with claimed as
// its claimed predicate.
func statesForm(m *schema.Mapping, claimed string) {
	m.Outbox.Status, m.OutboxStatus = "", nil
	m.States = schema.States{Published: `"State" = 'delivered'`, Failed: `"State" = 'failed'`, Claimed: claimed}
}
