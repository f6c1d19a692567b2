package draft

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// shapeCase is one outbox shape's DDL and the manifest its draft must be
// once a user fills its placeholders.
type shapeCase struct {
	name string
	o    Options
	// editable are the only fields the draft may fail to load on before
	// the fill: its EDIT placeholders.
	editable []string
	fill     map[string]string // draft text -> what a user writes instead
	outbox   schema.Outbox
	states   schema.States
	words    map[string]string // outbox_status (the status-word form)
	jobs     schema.Jobs
	delivery string
	store    string
}

var shapeCases = []shapeCase{
	{name: "derived status (timestamps), a uuid key, no jobs table",
		o:    Options{DDL: "testdata/shapes/timestamps.sql"},
		fill: map[string]string{`"aggregate_type": ""`: `"aggregate_type": "order"`},
		outbox: schema.Outbox{Table: "outbox", ID: "id", EventType: "message_type", AggregateID: "aggregate_id", Payload: "payload",
			Attempts: "started_attempts", LockedUntil: "locked_until", PublishedAt: "processed_at", CreatedAt: "created_at",
			IDType: schema.KeyText, Constants: map[string]string{"aggregate_type": "order"}},
		states:   schema.States{Published: "processed_at IS NOT NULL", Failed: "abandoned_at IS NOT NULL", Claimed: "locked_until > NOW(6)"},
		delivery: history.DeliveryAtLeastOnce, store: "mysql"},
	{name: "delete on publish with a dead-letter table",
		o: Options{DDL: "testdata/shapes/deletion.sql"},
		outbox: schema.Outbox{Table: "outbox_messages", ID: "id", Payload: "payload", Attempts: "attempts", LockedBy: "lease_owner",
			LockedUntil: "lease_until", CreatedAt: "created_at", Topic: "topic"},
		states: schema.States{Deleted: schema.DeletedPublished, DeadLetter: &schema.DeadLetter{Table: "outbox_dead_letters", ID: "outbox_id"},
			Claimed: "lease_until > NOW(6)"},
		delivery: history.DeliveryAtLeastOnce, store: "mysql"},
	{name: "a cursor in an offsets table beside an append-only table",
		o:        Options{DDL: "testdata/shapes/cursor.sql"},
		editable: []string{"schema.states.cursor"},
		fill:     map[string]string{`group: ""`: `group: "relay"`},
		outbox:   schema.Outbox{Table: "relay_log", ID: "offset", Payload: "payload", CreatedAt: "created_at", MessageID: "uuid", Topic: "topic"},
		states:   schema.States{Cursor: &schema.Cursor{Table: "relay_offsets", Column: "offset_acked", GroupColumn: "consumer_group", Group: "relay"}},
		delivery: history.DeliveryAtLeastOnce, store: "mysql"},
	{name: "integer status codes, a BINARY(16) key, no jobs table",
		o: Options{DDL: "testdata/shapes/intstatus.sql"},
		outbox: schema.Outbox{Table: "outbox", ID: "id", Payload: "payload", Status: "status", Attempts: "attempts", AvailableAt: "next_attempt_at",
			LockedBy: "locked_by", LockedUntil: "locked_until", LastError: "last_error", PublishedAt: "published_at", CreatedAt: "created_at",
			Topic: "topic", IDType: schema.KeyBinary},
		words:    map[string]string{"0": "pending", "1": "processing", "2": "published", "3": "failed"},
		delivery: history.DeliveryAtLeastOnce, store: "mysql"},
	{name: "status words and a CHAR(36) key, with a jobs-like table nothing links to",
		o: Options{DDL: "testdata/shapes/words-alone.sql"},
		outbox: schema.Outbox{Table: "message_outbox", ID: "id", AggregateID: "entity_id", Payload: "body", Status: "status", Attempts: "attempts",
			AvailableAt: "next_retry_at", LastError: "last_error", PublishedAt: "sent_at", CreatedAt: "created_at", Topic: "topic", IDType: schema.KeyText},
		words:    map[string]string{"pending": "pending", "in_flight": "processing", "sent": "published", "dead": "failed"},
		delivery: history.DeliveryAtLeastOnce, store: "mysql"},
	{name: "a PostgreSQL DDL file (BIGSERIAL, TIMESTAMPTZ, JSONB), derived status",
		o: Options{DDL: "testdata/shapes/postgres.sql"},
		outbox: schema.Outbox{Table: "outbox", ID: "id", EventType: "event_type", Payload: "payload", Attempts: "attempts", LockedUntil: "locked_until",
			LastError: "last_error", PublishedAt: "published_at", CreatedAt: "created_at"},
		states:   schema.States{Published: "published_at IS NOT NULL", Failed: "failed_at IS NOT NULL", Claimed: "locked_until > clock_timestamp()"},
		delivery: history.DeliveryAtLeastOnce, store: "postgres"},
	{name: "status words beside a jobs table (room-service)",
		o: Options{DDL: filepath.Join(roomServiceDir, "schema.sql")},
		outbox: schema.Outbox{Table: "room_outbox", ID: "event_id", EventType: "event_type", AggregateID: "task_id", Payload: "envelope", Status: "status",
			Attempts: "retry_count", AvailableAt: "retry_at", LockedBy: "worker_id", LockedUntil: "lock_until", LastError: "last_error",
			PublishedAt: "delivered_at", CreatedAt: "created_at"},
		words:    map[string]string{"pending": "pending", "processing": "processing", "published": "published", "failed": "failed"},
		jobs:     schema.Jobs{Table: "room_tasks", ID: "task_id", Queue: "queue", Status: "state"},
		delivery: history.DeliveryExactlyOnce, store: "mysql"},
}

// Each shape's DDL drafts a manifest that loads once its EDIT placeholders
// are filled (and before, fails only on them), with the shape's states or
// status map, its jobs table or none, and the delivery and store it guesses.
func TestDraftsEachShapeFromItsDDL(t *testing.T) {
	for _, c := range shapeCases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := write(t, t.TempDir(), c.o)
			require.NoError(t, err)
			requireFailsOnlyOn(t, out, c.editable)
			fillDraft(t, out, c.fill)
			a, err := manifest.Load(out)
			require.NoError(t, err, "the filled draft loads")
			m := a.Schema()
			require.Equal(t, c.outbox, m.Outbox)
			require.Equal(t, c.states, m.States)
			require.Equal(t, c.words, m.OutboxStatus)
			require.Equal(t, c.jobs, m.Jobs)
			require.Equal(t, history.SinkBullMQ, a.SinkKind(), "the sink is BullMQ until the user says otherwise")
			require.Equal(t, c.delivery, a.Delivery())
			require.Equal(t, c.store, a.StoreName())
			text := string(mustRead(t, out))
			require.Contains(t, text, "kind: \"bullmq\"  # EDIT: the sink cannot be read from the tables")
			require.Contains(t, text, "redis-stream")
			require.Contains(t, text, "redis-list")
			word := map[string]string{history.DeliveryExactlyOnce: "exactly-once-effect", history.DeliveryAtLeastOnce: "at-least-once"}[c.delivery]
			require.Contains(t, text, "delivery: \""+word+"\"  # GUESS")
			for _, line := range strings.Split(text, "\n") {
				if trimmed := strings.TrimSpace(line); trimmed != "" && !strings.HasPrefix(trimmed, "#") && !strings.HasSuffix(line, ":") {
					require.Contains(t, line, "  # ", "every value carries a comment: %q", line)
				}
			}
		})
	}
}

// requireFailsOnlyOn loads the draft at path: it loads when editable is
// empty, else fails on those fields alone.
func requireFailsOnlyOn(t *testing.T, path string, editable []string) {
	t.Helper()
	_, err := manifest.Load(path)
	if len(editable) == 0 {
		require.NoError(t, err, "the draft loads as it is")
		return
	}
	var me *manifest.Error
	require.True(t, errors.As(err, &me), "the draft fails on its placeholders: %v", err)
	for _, p := range me.Problems {
		require.Contains(t, editable, p.Field, "only a placeholder fails: %v", p)
	}
}

// fillDraft replaces each placeholder text of the draft, as a user would.
func fillDraft(t *testing.T, path string, fill map[string]string) {
	t.Helper()
	text := string(mustRead(t, path))
	for from, to := range fill {
		require.Contains(t, text, from, "the placeholder is in the draft")
		text = strings.Replace(text, from, to, 1)
	}
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// The manifest package's own shapes fixture holds several outboxes; named
// with --outbox-table, each drafts the states its hand-written manifest
// declares.
func TestDraftsTheStatesTheManifestFixturesDeclare(t *testing.T) {
	for table, want := range map[string]string{"msgs": "good_timestamps.yaml", "log": "good_cursor.yaml", "relay": "good_deletion.yaml"} {
		t.Run(table, func(t *testing.T) {
			out, res, err := write(t, t.TempDir(), Options{DDL: "../testdata/shapes.sql", OutboxTable: table})
			require.NoError(t, err)
			require.Empty(t, res.Jobs)
			if table == "log" {
				fillDraft(t, out, map[string]string{`group: ""`: `group: "relay"`})
			}
			got := loadSchema(t, out)
			hand := loadSchema(t, filepath.Join("../testdata", want))
			require.Equal(t, hand.States, got.States)
			require.Equal(t, hand.Outbox.ID, got.Outbox.ID)
			require.Equal(t, hand.Outbox.IDType, got.Outbox.IDType)
		})
	}
}

// --jobs-table none drafts an outbox alone even beside a linked jobs table.
func TestJobsTableNoneDraftsAnOutboxAlone(t *testing.T) {
	out, res, err := write(t, t.TempDir(), Options{DDL: filepath.Join(roomServiceDir, "schema.sql"), JobsTable: NoJobs})
	require.NoError(t, err)
	require.Equal(t, "room_outbox", res.Outbox)
	require.Empty(t, res.Jobs)
	m := loadSchema(t, out)
	require.False(t, m.HasJobs())
	require.Contains(t, string(mustRead(t, out)), "# jobs: none")
}

// Integer codes of a closed vocabulary (a CHECK) are mapped in order; a
// required word no code is left for is NOT FOUND, and the draft fails
// loading on that word alone.
func TestMapsIntegerCodesOfACheck(t *testing.T) {
	dir := t.TempDir()
	ddl := filepath.Join(dir, "codes.sql")
	src := string(mustRead(t, "testdata/shapes/intstatus.sql"))
	for codes, want := range map[string]map[string]string{
		"0, 1, 2, 3": {"0": "pending", "1": "processing", "2": "published", "3": "failed"},
		"0, 1, 2":    nil,
	} {
		text := strings.Replace(src, "status           TINYINT      NOT NULL DEFAULT 0,", "status TINYINT NOT NULL DEFAULT 0 CHECK (status IN ("+codes+")),", 1)
		require.NotEqual(t, src, text)
		require.NoError(t, os.WriteFile(ddl, []byte(text), 0o644))
		out, res, err := write(t, dir, Options{DDL: ddl, Force: true})
		require.NoError(t, err)
		require.Contains(t, strings.Join(res.Attention, "\n"), "schema.outbox_status: GUESS: integer codes")
		if want == nil {
			requireFailsOnlyOn(t, out, []string{"schema.outbox_status"})
			require.Contains(t, string(mustRead(t, out)), "# NOT FOUND: no code of CHECK (status IN (0, 1, 2)) left for failed")
			continue
		}
		require.Equal(t, want, loadSchema(t, out).OutboxStatus)
	}
}
