package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/outboxchaos/outboxchaos/adapters/manifest/draft"
)

const initSynopsis = `init (--dsn DSN | --ddl FILE) [--out outboxchaos.yaml] [--start COMMAND] [--build COMMAND] [--force]

drafts a manifest for your own dispatcher: finds the outbox table (and the
jobs table linked to it, if any) in your dev database (read only; MySQL,
MariaDB or PostgreSQL) or a DDL file, proposes the column mapping, where a
message is (status words or codes, or states: timestamps, deletion with a
dead-letter table, a cursor in an offsets table), the sink, the delivery
promise and the clock, with the reason for each guess as a comment, writes
the draft, and validates it as doctor --adapter does. With --dsn, the tables'
CREATE TABLE statements are written beside the draft (<out>.schema.sql), and
the last_error prefixes of pending rows propose the release and recovery
conventions; with both --dsn and --ddl, the tables come from the file and
the status words and conventions from the database. It never writes to the
database.`

func parseInitFlags(args []string) (draft.Options, error) {
	var f draft.Options
	fs := newFlags("init")
	fs.StringVar(&f.DSN, "dsn", "", "read the tables and the status words in use from this `DSN`, read only: postgres://user:password@host:port/database, or go-sql-driver/mysql's user:password@tcp(host:port)/database")
	fs.StringVar(&f.DDL, "ddl", "", "read the tables from this SQL `FILE` of CREATE TABLE statements")
	fs.StringVar(&f.Out, "out", "outboxchaos.yaml", "write the manifest draft to this `FILE` (.yaml or .yml)")
	fs.BoolVar(&f.Force, "force", false, "overwrite the draft (and its .schema.sql) if they exist")
	fs.StringVar(&f.Start, "start", "", "the `COMMAND` line that starts one dispatcher instance, e.g. \"node main.js\": a name on PATH or a path relative to the draft, then its arguments (default: ./dispatcher, to edit)")
	fs.StringVar(&f.Build, "build", "", "the `COMMAND` line that builds the dispatcher once per run, e.g. \"go build -o ${WORK_DIR}/bin/d ./cmd/d\" (default: none)")
	fs.StringVar(&f.Name, "name", "", "the dispatcher's `NAME` in reports (default: from the outbox table's name)")
	fs.StringVar(&f.OutboxTable, "outbox-table", "", "use this `TABLE` as the outbox instead of guessing")
	fs.StringVar(&f.JobsTable, "jobs-table", "", "use this `TABLE` as the jobs table instead of guessing; none for an outbox alone")
	if err := parse(fs, initSynopsis, args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("init: unexpected argument %q (see `outboxchaos init --help`)", fs.Arg(0))
	}
	return f, nil
}

func cmdInit(ctx context.Context, args []string) int {
	f, err := parseInitFlags(args)
	if err != nil {
		return fail(err)
	}
	if err := runInit(ctx, f, os.Stdout); err != nil {
		return fail(fmt.Errorf("init: %w", err))
	}
	return 0
}

// runInit drafts and writes the manifest (package draft), says what it
// read, chose and wrote, and validates the draft as doctor --adapter does.
func runInit(ctx context.Context, o draft.Options, w io.Writer) error {
	res, err := draft.Write(ctx, o)
	printDraft(w, res)
	if err != nil {
		return err
	}
	if err := checkAdapter(o.Out, w); err != nil {
		return fmt.Errorf("the draft %s does not validate yet; fix what follows in it, then run `outboxchaos doctor --adapter %s`:\n%w", o.Out, o.Out, err)
	}
	fmt.Fprintf(w, "next: review every GUESS comment in %s, then outboxchaos run --scenario baseline --adapter %s\n", o.Out, o.Out)
	return nil
}

// printDraft prints what a draft got to, as far as it got.
func printDraft(w io.Writer, res draft.Result) {
	if res.Source == "" {
		return
	}
	fmt.Fprintf(w, "init: read %d tables from %s\n", res.Tables, res.Source)
	switch {
	case res.Outbox != "" && res.Jobs == "":
		fmt.Fprintf(w, "init: outbox table %s, no jobs table\n", res.Outbox)
	case res.Outbox != "":
		fmt.Fprintf(w, "init: outbox table %s, jobs table %s\n", res.Outbox, res.Jobs)
	}
	for _, f := range res.Wrote {
		fmt.Fprintf(w, "init: wrote %s\n", f)
	}
	for _, a := range res.Attention {
		fmt.Fprintf(w, "init: needs you: %s\n", a)
	}
}
