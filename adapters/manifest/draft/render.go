package draft

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// draft is everything the manifest draft says.
type draft struct {
	source       string // where the tables came from, for the header
	out          string // the manifest's path as given, for the header's commands
	name         string
	nameReason   string
	start        commandLine
	startReason  string
	build        commandLine // command "" when none was given
	clock        clockGuess
	store        string
	storeReason  string
	ddl          string // the DDL file, relative to the manifest
	ddlReason    string
	pair         pairGuess
	shape        *shapeGuess // nil: the status-word form
	outboxStatus statusGuess
	jobStatus    statusGuess
	conventions  conventionGuess
}

// render writes the manifest: every proposal with its reason as a comment.
func (d draft) render() string {
	var b strings.Builder
	d.renderHeader(&b)
	d.renderCommands(&b)
	d.renderSchema(&b)
	d.renderSink(&b)
	d.renderCapabilities(&b)
	d.renderConventions(&b)
	return b.String()
}

func (d draft) renderHeader(b *strings.Builder) {
	fmt.Fprintf(b, "# A manifest drafted by `outboxchaos init` from %s.\n", oneLine(d.source))
	b.WriteString("# Each value below is a guess, with its reason in a comment; the ones marked\n")
	b.WriteString("# GUESS, EDIT, NOT FOUND or UNMAPPED need you. Every key is explained in the\n")
	b.WriteString("# documentation of adapters/manifest (go doc ./adapters/manifest). Then:\n")
	fmt.Fprintf(b, "#   outboxchaos doctor --adapter %s\n", d.out)
	fmt.Fprintf(b, "#   outboxchaos run --scenario baseline --adapter %s\n", d.out)
	fmt.Fprintf(b, "name: %s  # %s\n", q(d.name), oneLine(d.nameReason))
	fmt.Fprintf(b, "store: %s  # %s\n\n", q(d.store), oneLine(d.storeReason))
}

func (d draft) renderCommands(b *strings.Builder) {
	if d.build.command == "" {
		b.WriteString("# build:  # optional: how to build the dispatcher, once per run, e.g.\n")
		b.WriteString("#   command: go\n")
		b.WriteString("#   args: [build, -o, \"${WORK_DIR}/bin/dispatcher\", ./cmd/dispatcher]\n\n")
	} else {
		b.WriteString("build:\n")
		fmt.Fprintf(b, "  command: %s  # given with --build\n", q(d.build.command))
		fmt.Fprintf(b, "  args: %s  # given with --build\n", qList(d.build.args))
		b.WriteString("  # dir: .  # where it runs, relative to this file (default: this file's directory)\n\n")
	}
	b.WriteString("start:\n")
	fmt.Fprintf(b, "  command: %s  # %s\n", q(d.start.command), oneLine(d.startReason))
	if len(d.start.args) == 0 {
		b.WriteString("  args: []  # EDIT: its arguments; templates such as \"${OUTBOX_INSTANCE_ID}\" are allowed\n")
	} else {
		fmt.Fprintf(b, "  args: %s  # given with --start\n", qList(d.start.args))
	}
	fmt.Fprintf(b, "  # Every contract variable (%s, ...;\n", strings.Join(manifest.ContractVariables()[:3], ", "))
	b.WriteString("  # docs/contract.md §3) reaches the process as it is. If the dispatcher reads\n")
	b.WriteString("  # names of its own, set pass_contract_env: false and map each under env:, e.g.\n")
	dsnVar := "OUTBOX_MYSQL_DSN"
	if d.store == storePostgres {
		dsnVar = "OUTBOX_POSTGRES_URL"
	}
	fmt.Fprintf(b, "  #   env: {MY_DATABASE_URL: \"${%s}\"}\n", dsnVar)
	b.WriteString("  pass_contract_env: true  # GUESS: it reads the contract's variables (see above)\n\n")
}

func (d draft) renderSchema(b *strings.Builder) {
	b.WriteString("schema:\n")
	fmt.Fprintf(b, "  ddl: %s  # %s\n", q(d.ddl), oneLine(d.ddlReason))
	if d.pair.jobs == nil {
		renderTable(b, "outbox", d.pair.outbox, soloKeys())
	} else {
		renderTable(b, "outbox", d.pair.outbox, outboxKeys)
	}
	d.renderConstants(b)
	if d.shape == nil {
		renderStatus(b, outboxRole.field, d.outboxStatus)
	} else {
		d.shape.render(b)
	}
	if d.pair.jobs == nil {
		fmt.Fprintf(b, "  # jobs: none: no table is linked to %s (a foreign key, or a column named after a jobs table or its id); name one with --jobs-table if it has one\n", d.pair.outbox.table.Name)
		return
	}
	renderTable(b, "jobs", *d.pair.jobs, jobsKeys)
	renderStatus(b, jobsRole.field, d.jobStatus)
}

func renderTable(b *strings.Builder, section string, g tableGuess, keys []keySpec) {
	fmt.Fprintf(b, "  %s:\n", section)
	fmt.Fprintf(b, "    table: %s  # GUESS: %s\n", q(g.table.Name), oneLine(g.reason))
	for _, k := range keys {
		p, ok := g.picks[k.key]
		switch {
		case ok:
			fmt.Fprintf(b, "    %s: %s  # GUESS: %s\n", k.key, q(p.column), oneLine(p.reason))
		case k.required:
			fmt.Fprintf(b, "    %s: \"\"  # NOT FOUND: no column of %s fits %s; name the one that holds it\n", k.key, g.table.Name, k.meaning)
		default:
			fmt.Fprintf(b, "    # %s: not found (optional: %s); name the column if there is one\n", k.key, k.meaning)
		}
	}
}

func renderStatus(b *strings.Builder, field string, g statusGuess) {
	fmt.Fprintf(b, "  %s:\n", field)
	for _, p := range g.picks {
		tag := "GUESS: "
		if p.guess {
			tag = ""
		}
		fmt.Fprintf(b, "    %s: %s  # %s%s\n", q(p.word), q(p.canonical), tag, oneLine(p.reason))
	}
	for _, n := range g.notes {
		fmt.Fprintf(b, "    # %s\n", oneLine(n))
	}
}

// render writes the states: the outbox has no status column.
func (sh *shapeGuess) render(b *strings.Builder) {
	b.WriteString("  # No status column: where a message is comes from the states below\n")
	b.WriteString("  # (SQL predicates over the row, its deletion, a cursor, a dead-letter table).\n")
	b.WriteString("  states:\n")
	for _, l := range sh.lines {
		fmt.Fprintf(b, "    %s: %s  # %s\n", l.key, l.value, oneLine(l.reason))
	}
	if c := sh.cursor; c != nil {
		if c.groupColumn == "" {
			fmt.Fprintf(b, "    cursor: {table: %s, column: %s}  # %s\n", q(c.table), q(c.column), oneLine(c.reason))
		} else {
			fmt.Fprintf(b, "    cursor: {table: %s, column: %s, group_column: %s, group: %s}  # %s; %s\n",
				q(c.table), q(c.column), q(c.groupColumn), q(c.group), oneLine(c.reason), oneLine(c.groupReason))
		}
	}
	for _, n := range sh.notes {
		fmt.Fprintf(b, "    # %s\n", oneLine(n))
	}
}

func (d draft) renderSink(b *strings.Builder) {
	b.WriteString("\nsink:\n")
	b.WriteString("  kind: \"bullmq\"  # EDIT: the sink cannot be read from the tables: bullmq (BullMQ queues, the default), redis-stream (XADD, a stream per queue) or redis-list (LPUSH, a list per queue)\n")
	b.WriteString("  # prefix: \"bull\"  # bullmq only: the key prefix it must use (default: the harness's)\n")
	b.WriteString("  # queues: [\"ai-default\", \"ai-bulk\"]  # the BullMQ queues, or the stream or list keys as named (default: the harness's)\n")
	b.WriteString("  # message_id: \"message_id\"  # redis-stream: the entry's field with the message id; redis-list: the element's JSON key with it\n")
	b.WriteString("  # payload: \"payload\"  # redis-stream: the field with the payload JSON; redis-list: its JSON key (\"\" when the element is the payload)\n")
	if d.pair.jobs != nil {
		b.WriteString("delivery: \"exactly-once-effect\"  # GUESS: the contract's promise beside a jobs table: each job created once; write at-least-once if a duplicate under the message's own id is allowed\n")
		return
	}
	b.WriteString("delivery: \"at-least-once\"  # GUESS: without a jobs table a relay usually publishes again after a crash between the publish and the mark, and the consumer drops a duplicate by its message id; write exactly-once-effect if it never publishes twice\n")
}

func (d draft) renderCapabilities(b *strings.Builder) {
	b.WriteString("\ncapabilities:\n")
	fmt.Fprintf(b, "  tuning: []  # EDIT: list the tuning variables it honours, of %s\n", strings.Join(supervisor.TuningVariables(), ", "))
	b.WriteString("  crash_points: false  # true only if it reads OUTBOX_FAILPOINTS and prints the crash line (see adapters' doc)\n")
	b.WriteString("  graceful_term: false  # true if SIGTERM makes it stop claiming, finish or release what it holds, and exit 0\n")
	fmt.Fprintf(b, "  clock: %s  # %s\n", q(d.clock.value), oneLine(d.clock.reason))
}

func (d draft) renderConventions(b *strings.Builder) {
	c := d.conventions
	fmt.Fprintf(b, "\n# conventions: %s\n", oneLine(c.note))
	if len(c.releases) > 0 || len(c.recoveries) > 0 {
		b.WriteString("conventions:\n")
		renderPrefixes(b, "releases", "a release", c.releases)
		renderPrefixes(b, "recoveries", "a recovery", c.recoveries)
	}
	if len(c.others) > 0 {
		var seen []string
		for _, p := range c.others {
			seen = append(seen, fmt.Sprintf("%s (%s)", q(p.prefix), rowsText(p.rows)))
		}
		fmt.Fprintf(b, "# seen too, read as neither a release nor a recovery (a retry's error?), so not declared: %s\n", strings.Join(seen, ", "))
	}
}

func renderPrefixes(b *strings.Builder, key, kind string, list []prefixSeen) {
	if len(list) == 0 {
		return
	}
	var prefixes, why []string
	for _, p := range list {
		prefixes = append(prefixes, p.prefix)
		why = append(why, fmt.Sprintf("%s on %s reads as %s (%q)", q(p.prefix), rowsText(p.rows), kind, p.word))
	}
	fmt.Fprintf(b, "  %s:\n", key)
	fmt.Fprintf(b, "    last_error_prefixes: %s  # GUESS: %s\n", qList(prefixes), strings.Join(why, "; "))
}

func rowsText(n int) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// q writes s as a YAML double-quoted scalar (a JSON string is one), so no
// word is read as a number, a boolean or a null.
func q(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "a > b" stays readable
	_ = enc.Encode(s)        // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// qList writes list as a YAML flow sequence of double-quoted scalars.
func qList(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = q(s)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var nameUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// manifestName derives a dispatcher name from a table name.
func manifestName(table string) string {
	n := strings.Trim(nameUnsafe.ReplaceAllString(table, "-"), "-._")
	if len(n) > 64 {
		n = n[:64]
	}
	if n == "" {
		return "dispatcher"
	}
	return n
}
