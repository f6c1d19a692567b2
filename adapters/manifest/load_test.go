package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

func TestLoadGood(t *testing.T) {
	a, err := Load("testdata/good.yaml")
	require.NoError(t, err)
	require.Equal(t, "good-room", a.Name())
	require.True(t, filepath.IsAbs(a.Path()))
	require.Equal(t, "roomq", a.Prefix())
	require.Equal(t, []string{"rooms", "gifts"}, a.Queues())
	require.Equal(t, supervisor.Capabilities{Tuning: []string{"OUTBOX_LEASE"}, GracefulTerm: true}, a.Capabilities())

	m := a.Schema()
	require.NoError(t, m.Validate())
	require.Len(t, m.DDL, 2, "two CREATE TABLE statements, comments dropped")
	require.Contains(t, m.DDL[0], "'queue; allowlisted'", "a ';' inside quotes does not split")
	require.Equal(t, schema.Outbox{Table: "outbox", ID: "event_id", EventType: "kind", AggregateID: "task_id",
		Payload: "body", Status: "status", Attempts: "tries", AvailableAt: "due_at", LockedBy: "owner",
		LockedUntil: "lease_until", LastError: "error_text"}, m.Outbox)
	require.Equal(t, schema.Jobs{Table: "tasks", ID: "task_id", Queue: "queue", Status: "state"}, m.Jobs)
	w, err := m.Word("pending")
	require.NoError(t, err)
	require.Equal(t, "pending", w)
	w, err = m.JobWord("queued")
	require.NoError(t, err)
	require.Equal(t, "sent", w)

	// The adapter hands out copies.
	m.OutboxStatus["x"] = "pending"
	require.NotContains(t, a.Schema().OutboxStatus, "x")

	c := a.Conventions()
	require.Equal(t, history.Conventions{ReleaseErrors: []string{"released: "}, RecoveryErrors: []string{"lease expired", "recovered"},
		RecoveryBound: history.Duration(12 * time.Second)}, c)
	c.RecoveryErrors[0] = "x"
	require.Equal(t, "lease expired", a.Conventions().RecoveryErrors[0], "the adapter hands out copies")
}

func TestLoadReferenceSchema(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	require.NoError(t, os.WriteFile(p, []byte("name: r\nstart: {command: sh}\nschema: reference\n"), 0o644))
	a, err := Load(p)
	require.NoError(t, err)
	require.Equal(t, schema.Reference(), a.Schema())
	require.Equal(t, supervisor.Capabilities{}, a.Capabilities(), "capabilities default to none")
	require.False(t, a.Conventions().Declared(), "conventions default to none")
	require.Empty(t, a.Queues())
}

// badCase is one malformed manifest and the single problem Load must report.
type badCase struct {
	file   string
	field  string // the YAML path reported
	marker string // text on the line the problem must point at ("" = line 0)
	what   string // in the problem's description
	fix    string // in the problem's fix
}

var badCases = []badCase{
	{"unknown_key", "start.argz", "argz:", `unknown key "argz"`, `did you mean "args"`},
	{"missing_ddl", "schema.ddl", "ddl: rooms.sql", `cannot read DDL file "rooms.sql"`, "name an existing SQL file"},
	{"command_not_found", "build.command", "oc-no-such-program", `program "oc-no-such-program" not found on PATH`, "install oc-no-such-program"},
	{"not_executable", "start.command", "./notexec.sh", "is not executable", "chmod +x"},
	{"column_not_in_ddl", "schema.outbox.locked_by", "owner_id", `column "owner_id" is not in table outbox`, "columns of outbox: body, due_at"},
	{"status_word_missing", "schema.outbox_status", "outbox_status:", `no status word maps to the canonical "processing"`, "<your word>: processing"},
	{"template_var", "start.env.ROOM_MANIFEST", "MANIFEST_DIRS", "unknown variable ${MANIFEST_DIRS}", "did you mean ${MANIFEST_DIR}"},
	{"capability_name", "capabilities.tuning[1]", "OUTBOX_POLL_INTERVALL", `"OUTBOX_POLL_INTERVALL" is not a contract tuning variable`, "did you mean OUTBOX_POLL_INTERVAL"},
	{"dir", "start.dir", "no-such-dir", `directory "no-such-dir" not found`, "relative to the manifest's directory"},
	{"build_contract_var", "build.args[4]", "OUTBOX_QUEUES", "${OUTBOX_QUEUES}: the contract variables exist only when an instance starts", "move it to start.args or start.env"},
	{"lone_dollar", "start.args[1]", "--price=$5", `lone $ in "--price=$5"`, "$$ for a literal $"},
	{"table", "schema.jobs.table", "table: task", `table "task" is not created by the DDL`, "have: outbox, tasks"},
	{"status_value", "schema.outbox_status.lost", "lost: gone", `"lost" maps to "gone", which is not a canonical status`, "pending, processing, published, failed"},
	{"tuning_not_delivered", "capabilities.tuning[1]", "OUTBOX_BATCH_SIZE", "honour OUTBOX_BATCH_SIZE but never receives it", "pass_contract_env: true"},
	{"crash_points_not_delivered", "capabilities.crash_points", "crash_points: true", "never receives OUTBOX_FAILPOINTS", "${OUTBOX_FAILPOINTS}"},
	{"wrong_type", "start.args", "args: {node: x}", "wrong type", "a list of strings"},
	{"not_auto_increment", "schema.outbox.id", "id: tries", "outbox.tries is int, not AUTO_INCREMENT", "declare it AUTO_INCREMENT"},
	{"attempts_type", "schema.outbox.attempts", "attempts: note", "column note is varchar; attempts must be an integer type", "use an integer column"},
	{"schema_word", "schema", "schema: references", `"references" is not a schema`, "schema: reference"},
	{"workdir_without_build", "start.command", "command:", "names ${WORK_DIR}, a fresh directory only a build step fills", "add a build step"},
	{"empty", "", "", "the file is empty or not a mapping", "start from the example"},
	{"conventions_blank_prefix", "conventions.releases.last_error_prefixes[1]", `"  "`, "an empty or blank prefix would match every last_error", "the text the dispatcher puts at the start"},
	{"conventions_duplicate_prefix", "conventions.recoveries.last_error_prefixes[1]", `"lease expired", "lease expired"`, `prefix "lease expired" is listed twice`, "list each prefix once"},
	{"conventions_bound", "conventions.recoveries.bound", "bound: 12 seconds", `"12 seconds" is not a duration`, "a Go duration"},
	{"conventions_negative_bound", "conventions.recoveries.bound", "bound: -5s", "bound -5s is not positive", "a positive duration"},
	{"conventions_silent_section", "conventions.releases", "releases: {", "conventions.releases says nothing about last_error", "keeps_last_error: true"},
	{"conventions_unknown_key", "conventions.recoveries.bond", "bond: 12s", `unknown key "bond"`, `did you mean "bound"`},
	// Outbox shapes (issue 22).
	{"states_no_published", "schema.states", "states:", "nothing says a message is published", "deleted: published, or cursor"},
	{"states_two_published", "schema.states", "states:", "published has 2 sources (published, deleted: published)", "keep one"},
	{"states_comment", "schema.states.published", "published:", "no comments or ';' in a state predicate", "one SQL expression"},
	{"states_no_column", "schema.states.published", "published:", `"finished = 1" names no column of the outbox table`, "columns: abandoned_at, id"},
	{"states_with_words", "schema.outbox_status", "outbox_status:", "outbox_status and states are both given", "drop outbox_status"},
	{"dead_letter_table", "schema.states.dead_letter.table", "dead_letter:", `table "relay_graveyard" is not created by the DDL`, "have: bin_msgs"},
	{"cursor_column", "schema.states.cursor", "cursor:", `column "acked" is not in table offsets`, "offset_acked"},
	{"cursor_text_key", "schema.states.cursor", "cursor:", "outbox.id id is not AUTO_INCREMENT", "the database's counter"},
	{"binary_key_size", "schema.outbox.id", "outbox:", "is binary(8); a binary key must hold a 16-byte uuid", "BINARY(16)"},
	{"sink_kind", "sink.kind", "kind: kafka", `sink kind "kafka" is not known`, "redis-stream or redis-list"},
	{"sink_message_id_bullmq", "sink.message_id", "message_id: id", "message_id and payload are for redis-stream and redis-list sinks", "drop message_id"},
	{"delivery", "delivery", "delivery:", `delivery "exactly-once" is not known`, "at-least-once"},
}

func TestLoadRejectsEachKindOfMistake(t *testing.T) {
	for _, c := range badCases {
		t.Run(c.file, func(t *testing.T) {
			path := "testdata/bad_" + c.file + ".yaml"
			_, err := Load(path)
			require.Error(t, err)
			var me *Error
			require.True(t, errors.As(err, &me), "want a *manifest.Error, got %T: %v", err, err)
			require.Len(t, me.Problems, 1, "exactly one problem expected, got:\n%v", err)
			p := me.Problems[0]
			require.Equal(t, path, p.File)
			require.Equal(t, c.field, p.Field, "field of: %v", err)
			require.Equal(t, lineOf(t, path, c.marker), p.Line, "line of: %v", err)
			require.Contains(t, p.What, c.what)
			require.Contains(t, p.Fix, c.fix)
			msg := err.Error()
			require.Contains(t, msg, path)
			require.Contains(t, msg, c.what)
			if p.Line > 0 {
				require.Contains(t, msg, path+":"+strconv.Itoa(p.Line)+": "+c.field+":")
			}
		})
	}
}

func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	require.NoError(t, os.WriteFile(p, []byte(`name: "bad name"
start:
  command: oc-no-such-program
  env: {X: "${NOPE}"}
capabilities:
  tuning: [LEASE]
`), 0o644))
	_, err := Load(p)
	var me *Error
	require.True(t, errors.As(err, &me), "%v", err)
	var fields []string
	for _, pr := range me.Problems {
		fields = append(fields, pr.Field)
	}
	require.Equal(t, []string{"name", "start.command", "start.env.X", "capabilities.tuning[0]", "schema"}, fields,
		"every problem, in line order (a missing field last):\n%v", err)
	require.Contains(t, err.Error(), "5 problems")
}

func TestLoadMissingFileAndBadYAML(t *testing.T) {
	_, err := Load("testdata/no-such.yaml")
	require.ErrorContains(t, err, "testdata/no-such.yaml")
	require.ErrorContains(t, err, "no such file")

	p := filepath.Join(t.TempDir(), "m.yaml")
	require.NoError(t, os.WriteFile(p, []byte("name: x\nstart: [unclosed\n"), 0o644))
	_, err = Load(p)
	require.ErrorContains(t, err, "not valid YAML")
	require.ErrorContains(t, err, "line")
}

func TestBuildDeferredForPathsItCreates(t *testing.T) {
	// A relative program missing at Load is fine when a build step exists...
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	body := "name: x\nbuild: {command: sh, args: [-c, 'true']}\nstart: {command: ./bin/d}\nschema: reference\n"
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	a, err := Load(p)
	require.NoError(t, err)
	// ...but Prepare says so when the build did not create it.
	err = a.Prepare(testCtx(t), t.TempDir())
	require.ErrorContains(t, err, "start.command")
	require.ErrorContains(t, err, filepath.Join(dir, "bin", "d"))

	// Without a build step it is an error at Load.
	require.NoError(t, os.WriteFile(p, []byte("name: x\nstart: {command: ./bin/d}\nschema: reference\n"), 0o644))
	_, err = Load(p)
	require.ErrorContains(t, err, "start.command")
}

func lineOf(t *testing.T, path, marker string) int {
	t.Helper()
	if marker == "" {
		return 0
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line contains %q", path, marker)
	return 0
}
