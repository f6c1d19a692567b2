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
	start        string
	startReason  string
	ddl          string // the DDL file, relative to the manifest
	ddlReason    string
	pair         pairGuess
	outboxStatus statusGuess
	jobStatus    statusGuess
}

// render writes the manifest: every proposal with its reason as a comment.
func (d draft) render() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# A manifest drafted by `outboxchaos init` from %s.\n", oneLine(d.source))
	w("# Each value below is a guess, with its reason in a comment; the ones marked\n")
	w("# GUESS, EDIT, NOT FOUND or UNMAPPED need you. Every key is explained in the\n")
	w("# documentation of adapters/manifest (go doc ./adapters/manifest). Then:\n")
	w("#   outboxchaos doctor --adapter %s\n", d.out)
	w("#   outboxchaos run --scenario baseline --adapter %s\n", d.out)
	w("name: %s  # %s\n\n", q(d.name), oneLine(d.nameReason))
	w("# build:  # optional: how to build the dispatcher, once per run, e.g.\n")
	w("#   command: go\n")
	w("#   args: [build, -o, \"${WORK_DIR}/bin/dispatcher\", ./cmd/dispatcher]\n\n")
	w("start:\n")
	w("  command: %s  # %s\n", q(d.start), oneLine(d.startReason))
	w("  args: []  # EDIT: its arguments; templates such as \"${OUTBOX_INSTANCE_ID}\" are allowed\n")
	w("  # Every contract variable (%s, ...;\n", strings.Join(manifest.ContractVariables()[:3], ", "))
	w("  # docs/contract.md §3) reaches the process as it is. If the dispatcher reads\n")
	w("  # names of its own, set pass_contract_env: false and map each under env:, e.g.\n")
	w("  #   env: {MY_DATABASE_DSN: \"${OUTBOX_MYSQL_DSN}\"}\n")
	w("  pass_contract_env: true  # GUESS: it reads the contract's variables (see above)\n\n")
	w("schema:\n")
	w("  ddl: %s  # %s\n", q(d.ddl), oneLine(d.ddlReason))
	d.renderTable(&b, "outbox", d.pair.outbox, outboxKeys)
	d.renderTable(&b, "jobs", d.pair.jobs, jobsKeys)
	renderStatus(&b, outboxRole.field, d.outboxStatus)
	renderStatus(&b, jobsRole.field, d.jobStatus)
	w("\ncapabilities:\n")
	w("  tuning: []  # EDIT: list the tuning variables it honours, of %s\n", strings.Join(supervisor.TuningVariables(), ", "))
	w("  crash_points: false  # true only if it reads OUTBOX_FAILPOINTS and prints the crash line (see adapters' doc)\n")
	w("  graceful_term: false  # true if SIGTERM makes it stop claiming, finish or release what it holds, and exit 0\n")
	return b.String()
}

func (d draft) renderTable(b *strings.Builder, section string, g tableGuess, keys []keySpec) {
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

// q writes s as a YAML double-quoted scalar (a JSON string is one), so no
// word is read as a number, a boolean or a null.
func q(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
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

// attention lists the draft's lines that need the user, for the summary.
func (d draft) attention() []string {
	var out []string
	for _, s := range []struct {
		section string
		g       tableGuess
	}{{"outbox", d.pair.outbox}, {"jobs", d.pair.jobs}} {
		for _, k := range s.g.missing {
			out = append(out, fmt.Sprintf("schema.%s.%s: no column found", s.section, k))
		}
	}
	for _, s := range []struct {
		field string
		g     statusGuess
	}{{outboxRole.field, d.outboxStatus}, {jobsRole.field, d.jobStatus}} {
		for _, p := range s.g.picks {
			if p.guess {
				out = append(out, fmt.Sprintf("schema.%s.%s: no word of yours reads as %s; the contract's word is a placeholder", s.field, p.word, p.canonical))
			}
		}
		for _, n := range s.g.notes {
			if strings.HasPrefix(n, "NOT FOUND") || strings.HasPrefix(n, "UNMAPPED") {
				out = append(out, "schema."+s.field+": "+n)
			}
		}
	}
	return out
}
