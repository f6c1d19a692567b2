package draft

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

const roomServiceDir = "../../examples/roomservice"

// write runs Write with o plus Out DIR/draft.yaml and, unless o names one,
// Start (an executable, so that the draft can validate) and returns the
// draft's path.
func write(t *testing.T, dir string, o Options) (string, Result, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	o.Out = filepath.Join(dir, "draft.yaml")
	if o.Start == "" {
		o.Start = exe
	}
	res, err := Write(context.Background(), o)
	return o.Out, res, err
}

func loadSchema(t *testing.T, path string) schema.Mapping {
	t.Helper()
	return loadAdapter(t, path).Schema()
}

func loadAdapter(t *testing.T, path string) *manifest.Adapter {
	t.Helper()
	a, err := manifest.Load(path)
	require.NoError(t, err)
	return a
}

// From room-service's DDL alone, init finds its tables and every column
// the hand-written manifest maps, and the draft validates. The DDL has no
// ENUM or CHECK, so only the DEFAULT word is known: the other canonical
// words are placeholders, each said to be one.
func TestDraftsRoomServiceFromItsDDL(t *testing.T) {
	out, res, err := write(t, t.TempDir(), Options{DDL: filepath.Join(roomServiceDir, "schema.sql")})
	require.NoError(t, err)
	require.Equal(t, Result{Source: "DDL file " + filepath.Join(roomServiceDir, "schema.sql"), Tables: 2, Outbox: "room_outbox", Jobs: "room_tasks",
		Wrote: []string{out}, Attention: res.Attention}, res)
	a, err := manifest.Load(out)
	require.NoError(t, err, "the draft validates as a manifest")
	require.Equal(t, "room_outbox", a.Name())

	want := loadSchema(t, filepath.Join(roomServiceDir, "manifest.yaml"))
	got := loadSchema(t, out)
	require.Equal(t, want.Outbox, got.Outbox)
	require.Equal(t, want.Jobs, got.Jobs)
	require.Equal(t, want.DDL, got.DDL, "the draft names room-service's own DDL file")
	require.Equal(t, map[string]string{"pending": "pending", "processing": "processing", "published": "published", "failed": "failed"}, got.OutboxStatus)

	draft, err := os.ReadFile(out)
	require.NoError(t, err)
	text := string(draft)
	require.Contains(t, text, `"pending": "pending"  # GUESS: the column's DEFAULT`)
	require.Contains(t, text, `"published": "published"  # GUESS: no word of yours reads as published`)
	require.Contains(t, strings.Join(res.Attention, "\n"), "schema.outbox_status.published: no word of yours reads as published")
	require.Contains(t, text, "# lock_token: not found (optional")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") || strings.TrimSpace(line) == "" || strings.HasSuffix(line, ":") {
			continue
		}
		require.Contains(t, line, "  # ", "every value carries a comment: %q", line)
	}
}

// A schema in another vocabulary: the ENUM and CHECK words are mapped, the
// word that reads as no canonical one is left out and said so, and the
// decoy table with an AUTO_INCREMENT id is not taken for the outbox.
func TestDraftsAnotherVocabulary(t *testing.T) {
	out, res, err := write(t, t.TempDir(), Options{DDL: "testdata/init-messages.sql"})
	require.NoError(t, err)
	got := loadSchema(t, out)
	require.Equal(t, schema.Outbox{
		Table: "outgoing_messages", ID: "seq", EventType: "message_type", AggregateID: "delivery_ref",
		Payload: "body", Status: "status", Attempts: "tries", AvailableAt: "not_before", LockedBy: "claimed_by",
		LockToken: "claim_token", LockedUntil: "claimed_until", LastError: "error_text", PublishedAt: "sent_at",
		CreatedAt: "inserted_at",
	}, got.Outbox)
	require.Equal(t, schema.Jobs{Table: "deliveries", ID: "delivery_ref", Queue: "channel", Status: "state"}, got.Jobs)
	require.Equal(t, map[string]string{"new": "pending", "sending": "processing", "sent": "published", "dead": "failed"}, got.OutboxStatus)
	require.Equal(t, map[string]string{"waiting": "created", "enqueued": "queued", "working": "running", "finished": "succeeded"}, got.JobStatus)
	draft, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(draft), `# UNMAPPED: "cancelled" (in ENUM(`)
	require.Contains(t, string(draft), `"sent": "published"  # GUESS: in CHECK (status IN ('new', 'sending', 'sent', 'dead')); reads as published`)
	require.Contains(t, strings.Join(res.Attention, "\n"), "schema.job_status: UNMAPPED")
}

// A closed vocabulary without a word for a required canonical status is
// not papered over: the draft is written, says NOT FOUND, and fails
// validation naming the missing word.
func TestLeavesAMissingWordOfAClosedVocabularyToTheUser(t *testing.T) {
	dir := t.TempDir()
	ddl := filepath.Join(dir, "s.sql")
	src, err := os.ReadFile("testdata/init-messages.sql")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ddl, []byte(strings.ReplaceAll(string(src), ", 'dead'", "")), 0o644))
	out, res, err := write(t, dir, Options{DDL: ddl})
	require.NoError(t, err, "the draft is written")
	require.Equal(t, []string{out}, res.Wrote)
	_, err = manifest.Load(out)
	require.ErrorContains(t, err, `no status word maps to the canonical "failed"`)
	draft, rerr := os.ReadFile(out)
	require.NoError(t, rerr)
	require.Contains(t, string(draft), "# NOT FOUND: no word of CHECK (status IN ('new', 'sending', 'sent')) reads as failed")
}

func TestRefusesBadInputWithWhatToFix(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	msgs, err := os.ReadFile("testdata/init-messages.sql")
	require.NoError(t, err)
	text := string(msgs)
	stmt := text[strings.Index(text, "CREATE TABLE outgoing_messages"):strings.Index(text, "CREATE TABLE audit_log")]
	twin := text + strings.Replace(stmt, "outgoing_messages", "outgoing_messages_copy", 1)
	existing := write("existing.yaml", "name: mine\n")
	ddl := func(path string) Options { return Options{DDL: path} }
	cases := []struct {
		o    Options
		want []string
	}{
		{Options{}, []string{"give --dsn", "or --ddl"}},
		{ddl(filepath.Join(dir, "missing.sql")), []string{"no such file", "fix: give the path"}},
		{ddl(write("quote.sql", "CREATE TABLE a (x VARCHAR(3) DEFAULT 'open);")), []string{"unclosed ' quote", "fix: correct the SQL"}},
		{ddl(write("none.sql", "INSERT INTO a VALUES (1);")), []string{"no CREATE TABLE statement found", "fix:"}},
		{ddl(write("one.sql", "CREATE TABLE a (id INT);")), []string{"no outbox table found", "Closest: a (missing id, payload)", "fix: name it with --outbox-table"}},
		{ddl(write("plain.sql", "CREATE TABLE a (id INT); CREATE TABLE b (x INT);")), []string{"no outbox table found", "a uuid primary key", "Closest", "fix: name it"}},
		{ddl(write("twin.sql", twin)), []string{"ambiguous tables", "outgoing_messages_copy", "--outbox-table and --jobs-table"}},
		{Options{DDL: "testdata/init-messages.sql", OutboxTable: "nope"}, []string{`--outbox-table "nope": no such table`, "outgoing_messages"}},
		{Options{DSN: "not a dsn"}, []string{"--dsn", "fix: write it as go-sql-driver/mysql takes it"}},
		{Options{DSN: "root:secret@tcp(127.0.0.1:1)/"}, []string{"names no database", "fix:"}},
		{Options{DSN: "root:secret@tcp(127.0.0.1:1)/db?timeout=2s"}, []string{"database db on 127.0.0.1:1", "fix: check the host, port"}},
		{Options{DDL: "x.sql", Out: "draft.json"}, []string{"ends in .yaml or .yml"}},
		{Options{DDL: "testdata/init-messages.sql", Out: existing}, []string{"exists and init never overwrites", "--force"}},
	}
	for _, c := range cases {
		if c.o.Out == "" {
			c.o.Out = filepath.Join(dir, "draft.yaml")
		}
		_, err := Write(context.Background(), c.o)
		require.Error(t, err, "%+v", c.o)
		for _, w := range c.want {
			require.Contains(t, err.Error(), w, "%+v", c.o)
		}
		require.NotContains(t, err.Error(), "secret", "%+v: no password in an error", c.o)
	}
	data, err := os.ReadFile(existing)
	require.NoError(t, err)
	require.Equal(t, "name: mine\n", string(data), "the existing file is untouched")
}

// Force replaces a draft; without it the second run refuses.
func TestOverwritesOnlyWithForce(t *testing.T) {
	dir := t.TempDir()
	_, _, err := write(t, dir, Options{DDL: "testdata/init-messages.sql"})
	require.NoError(t, err)
	_, _, err = write(t, dir, Options{DDL: "testdata/init-messages.sql"})
	require.ErrorContains(t, err, "exists and init never overwrites")
	_, _, err = write(t, dir, Options{DDL: "testdata/init-messages.sql", Force: true})
	require.NoError(t, err)
}
