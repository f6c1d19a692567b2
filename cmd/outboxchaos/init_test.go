package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

const roomServiceDir = "../../adapters/examples/roomservice"

// initInto runs init with args plus --out DIR/draft.yaml and --start (an
// executable, so that the draft can validate) and returns the draft's path.
func initInto(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	out := filepath.Join(dir, "draft.yaml")
	f, err := parseInitFlags(append([]string{"--out", out, "--start", exe}, args...))
	require.NoError(t, err)
	var w bytes.Buffer
	err = runInit(context.Background(), f, &w)
	return out, w.String(), err
}

func loadSchema(t *testing.T, path string) schema.Mapping {
	t.Helper()
	a, err := manifest.Load(path)
	require.NoError(t, err)
	return a.Schema()
}

// From room-service's DDL alone, init finds its tables and every column
// the hand-written manifest maps, and the draft validates. The DDL has no
// ENUM or CHECK, so only the DEFAULT word is known: the other canonical
// words are placeholders, each said to be one.
func TestInitDraftsRoomServiceFromItsDDL(t *testing.T) {
	out, log, err := initInto(t, t.TempDir(), "--ddl", filepath.Join(roomServiceDir, "schema.sql"))
	require.NoError(t, err, log)
	require.Contains(t, log, "adapter room_outbox: ok", "the draft passes doctor --adapter's check")

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
	require.Contains(t, log, "needs you: schema.outbox_status.published")
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
func TestInitDraftsAnotherVocabulary(t *testing.T) {
	out, log, err := initInto(t, t.TempDir(), "--ddl", "testdata/init-messages.sql")
	require.NoError(t, err, log)
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
	require.Contains(t, log, "needs you: schema.job_status: UNMAPPED")
}

// A closed vocabulary without a word for a required canonical status is
// not papered over: the draft is written, says NOT FOUND, and fails
// validation naming the missing word.
func TestInitLeavesAMissingWordOfAClosedVocabularyToTheUser(t *testing.T) {
	dir := t.TempDir()
	ddl := filepath.Join(dir, "s.sql")
	src, err := os.ReadFile("testdata/init-messages.sql")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ddl, []byte(strings.ReplaceAll(string(src), ", 'dead'", "")), 0o644))
	out, log, err := initInto(t, dir, "--ddl", ddl)
	require.Error(t, err)
	require.Contains(t, err.Error(), "does not validate yet")
	require.Contains(t, err.Error(), `no status word maps to the canonical "failed"`)
	require.Contains(t, log, "wrote "+out)
	draft, rerr := os.ReadFile(out)
	require.NoError(t, rerr)
	require.Contains(t, string(draft), "# NOT FOUND: no word of CHECK (status IN ('new', 'sending', 'sent')) reads as failed")
}

func TestInitRefusesBadInputWithWhatToFix(t *testing.T) {
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
	cases := []struct {
		args []string
		want []string
	}{
		{nil, []string{"give --dsn", "or --ddl"}},
		{[]string{"--ddl", filepath.Join(dir, "missing.sql")}, []string{"no such file", "fix: give the path"}},
		{[]string{"--ddl", write("quote.sql", "CREATE TABLE a (x VARCHAR(3) DEFAULT 'open);")}, []string{"unclosed ' quote", "fix: correct the SQL"}},
		{[]string{"--ddl", write("none.sql", "INSERT INTO a VALUES (1);")}, []string{"no CREATE TABLE statement found", "fix:"}},
		{[]string{"--ddl", write("one.sql", "CREATE TABLE a (id INT);")}, []string{"found 1 table(s)", "fix:"}},
		{[]string{"--ddl", write("plain.sql", "CREATE TABLE a (id INT); CREATE TABLE b (x INT);")}, []string{"no outbox and jobs tables found", "Closest", "fix: name them"}},
		{[]string{"--ddl", write("twin.sql", twin)}, []string{"ambiguous tables", "outgoing_messages_copy", "--outbox-table and --jobs-table"}},
		{[]string{"--ddl", "testdata/init-messages.sql", "--outbox-table", "nope"}, []string{`--outbox-table "nope": no such table`, "outgoing_messages"}},
		{[]string{"--dsn", "not a dsn"}, []string{"--dsn", "fix: write it as go-sql-driver/mysql takes it"}},
		{[]string{"--dsn", "root:secret@tcp(127.0.0.1:1)/"}, []string{"names no database", "fix:"}},
		{[]string{"--dsn", "root:secret@tcp(127.0.0.1:1)/db?timeout=2s"}, []string{"database db on 127.0.0.1:1", "fix: check the host, port"}},
		{[]string{"--ddl", "x.sql", "--out", "draft.json"}, []string{"ends in .yaml or .yml"}},
		{[]string{"--ddl", "testdata/init-messages.sql", "--out", existing}, []string{"exists and init never overwrites", "--force"}},
	}
	for _, c := range cases {
		err := initError(t, dir, c.args)
		require.Error(t, err, "%v", c.args)
		for _, w := range c.want {
			require.Contains(t, err.Error(), w, "%v", c.args)
		}
		require.NotContains(t, err.Error(), "secret", "%v: no password in an error", c.args)
	}
	data, err := os.ReadFile(existing)
	require.NoError(t, err)
	require.Equal(t, "name: mine\n", string(data), "the existing file is untouched")
}

// initError runs init's flag parsing and then init, as the command does.
func initError(t *testing.T, dir string, args []string) error {
	t.Helper()
	hasOut := false
	for _, a := range args {
		hasOut = hasOut || a == "--out"
	}
	if !hasOut {
		args = append(args, "--out", filepath.Join(dir, "draft.yaml"))
	}
	f, err := parseInitFlags(args)
	if err != nil {
		return err
	}
	var w bytes.Buffer
	return runInit(context.Background(), f, &w)
}

// --force replaces a draft; without it the second run refuses.
func TestInitOverwritesOnlyWithForce(t *testing.T) {
	dir := t.TempDir()
	_, log, err := initInto(t, dir, "--ddl", "testdata/init-messages.sql")
	require.NoError(t, err, log)
	_, _, err = initInto(t, dir, "--ddl", "testdata/init-messages.sql")
	require.ErrorContains(t, err, "exists and init never overwrites")
	_, log, err = initInto(t, dir, "--ddl", "testdata/init-messages.sql", "--force")
	require.NoError(t, err, log)
}

func TestInitHelpPrintsItsFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	c := exec.Command(buildCLI(t), "init", "--help")
	c.Stdout, c.Stderr = &stdout, &stderr
	require.NoError(t, c.Run(), stderr.String())
	for _, w := range []string{"usage: outboxchaos init", "--dsn DSN", "--ddl FILE", "--out FILE", "--force", "--start COMMAND", "--outbox-table TABLE", "--jobs-table TABLE", "--name NAME"} {
		require.Contains(t, stdout.String(), w)
	}
}
