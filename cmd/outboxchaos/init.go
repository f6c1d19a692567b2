package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
)

// initFlags are `outboxchaos init`'s flags.
type initFlags struct {
	dsn, ddl, out, start, name string
	outboxTable, jobsTable     string
	force                      bool
}

const initSynopsis = `init (--dsn DSN | --ddl FILE) [--out outboxchaos.yaml] [--start COMMAND] [--force]

drafts a manifest for your own dispatcher: finds the outbox and jobs tables in
your dev database (read only) or a DDL file, proposes the column mapping and
the status maps with the reason for each guess as a comment, writes the draft,
and validates it as doctor --adapter does. With --dsn, the tables' CREATE
TABLE statements are written beside the draft (<out>.schema.sql); with both
--dsn and --ddl, the tables come from the file and the status words from the
database too. It never writes to the database.`

func parseInitFlags(args []string) (initFlags, error) {
	var f initFlags
	fs := newFlags("init")
	fs.StringVar(&f.dsn, "dsn", "", "read the tables and the status words in use from this `DSN`, read only; go-sql-driver/mysql's form: user:password@tcp(host:port)/database")
	fs.StringVar(&f.ddl, "ddl", "", "read the tables from this SQL `FILE` of CREATE TABLE statements")
	fs.StringVar(&f.out, "out", "outboxchaos.yaml", "write the manifest draft to this `FILE` (.yaml or .yml)")
	fs.BoolVar(&f.force, "force", false, "overwrite the draft (and its .schema.sql) if they exist")
	fs.StringVar(&f.start, "start", "", "the `COMMAND` that starts one dispatcher instance: a name on PATH or a path relative to the draft (default: ./dispatcher, to edit)")
	fs.StringVar(&f.name, "name", "", "the dispatcher's `NAME` in reports (default: from the outbox table's name)")
	fs.StringVar(&f.outboxTable, "outbox-table", "", "use this `TABLE` as the outbox instead of guessing")
	fs.StringVar(&f.jobsTable, "jobs-table", "", "use this `TABLE` as the jobs table instead of guessing")
	if err := parse(fs, initSynopsis, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("init: unexpected argument %q (see `outboxchaos init --help`)", fs.Arg(0))
	case f.dsn == "" && f.ddl == "":
		return f, errors.New("init: give --dsn (your dev database, read only) or --ddl (the SQL file that creates your tables)")
	case !strings.HasSuffix(f.out, ".yaml") && !strings.HasSuffix(f.out, ".yml"):
		return f, fmt.Errorf("init: --out %q: a manifest's name ends in .yaml or .yml (fix: e.g. --out outboxchaos.yaml)", f.out)
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

// runInit drafts, writes and validates the manifest.
func runInit(ctx context.Context, f initFlags, w io.Writer) error {
	schemaOut := strings.TrimSuffix(strings.TrimSuffix(f.out, ".yaml"), ".yml") + ".schema.sql"
	outputs := []string{f.out}
	if f.ddl == "" {
		outputs = append(outputs, schemaOut)
	}
	if err := refuseOverwrite(outputs, f.force); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	src, err := readSource(ctx, f)
	if err != nil {
		return err
	}
	defer src.close()
	fmt.Fprintf(w, "init: read %d tables from %s\n", len(src.tables), src.desc)
	pair, err := choosePair(src.tables, f.outboxTable, f.jobsTable)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "init: outbox table %s, jobs table %s\n", pair.outbox.table.Name, pair.jobs.table.Name)
	d, err := src.draft(ctx, f, pair)
	if err != nil {
		return err
	}
	if f.ddl == "" {
		d.ddl, d.ddlReason = filepath.Base(schemaOut), "the CREATE TABLE statements of both tables, as "+src.desc+" shows them (written by init)"
		if err := writeFile(schemaOut, []byte(schemaFile(src.desc, pair)), f.force); err != nil {
			return err
		}
		fmt.Fprintf(w, "init: wrote %s\n", schemaOut)
	}
	if err := writeFile(f.out, []byte(d.render()), f.force); err != nil {
		return err
	}
	fmt.Fprintf(w, "init: wrote %s\n", f.out)
	for _, a := range d.attention() {
		fmt.Fprintf(w, "init: needs you: %s\n", a)
	}
	if err := checkAdapter(f.out, w); err != nil {
		return fmt.Errorf("the draft %s does not validate yet; fix what follows in it, then run `outboxchaos doctor --adapter %s`:\n%w", f.out, f.out, err)
	}
	fmt.Fprintf(w, "next: review every GUESS comment in %s, then outboxchaos run --scenario baseline --adapter %s\n", f.out, f.out)
	return nil
}

// source is what init reads: the tables, and the database when one is given.
type source struct {
	tables map[string]schemaddl.Table
	desc   string
	db     *readOnlyDB
}

func (s source) close() {
	if s.db != nil {
		s.db.close()
	}
}

// readSource reads the tables from --ddl, else from --dsn, and keeps the
// database open for the status words.
func readSource(ctx context.Context, f initFlags) (source, error) {
	var s source
	if f.dsn != "" {
		db, err := openReadOnly(ctx, f.dsn)
		if err != nil {
			return s, err
		}
		s.db, s.desc = db, db.where
	}
	if f.ddl != "" {
		tables, err := readDDLFile(f.ddl)
		if err != nil {
			s.close()
			return s, err
		}
		s.tables, s.desc = tables, "DDL file "+f.ddl
		if s.db != nil {
			s.desc += " (status words also from " + s.db.where + ")"
		}
		return s, nil
	}
	stmts, err := s.db.createStatements(ctx)
	if err == nil {
		s.tables, err = schemaddl.ParseTables(stmts)
	}
	if err != nil {
		s.close()
		return s, fmt.Errorf("%s: %w", s.db.where, err)
	}
	return s, nil
}
