package draft

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Options are what a draft is made from and where it goes; `outboxchaos
// init` fills them from its flags of the same names, which the errors
// name.
type Options struct {
	// DSN is the dev database to read, read only (--dsn): a PostgreSQL URL
	// (postgres://...) or key=value string (dbname=...), else a
	// go-sql-driver/mysql DSN.
	DSN string
	DDL string // a SQL file of CREATE TABLE statements (--ddl)
	// Out is the manifest to write (.yaml or .yml); with DSN and no DDL,
	// the tables' CREATE TABLE statements go beside it (SchemaPath).
	Out string
	// Start is the command line that starts one instance, its arguments
	// after the command ("node main.js"); "" for a placeholder (--start).
	Start string
	// Build is the command line that builds the dispatcher once per run
	// ("go build -o ${WORK_DIR}/bin/d ./cmd/d"); "" for none (--build).
	Build       string
	Name        string // the dispatcher's name; "" to derive it from the outbox table (--name)
	OutboxTable string // the outbox table; "" to guess (--outbox-table)
	JobsTable   string // the jobs table; "" to guess, NoJobs for none (--jobs-table)
	Force       bool   // overwrite Out (and its schema file) if they exist (--force)
}

// Result is what Write read, chose and wrote.
type Result struct {
	Source       string   // where the tables came from: "DDL file x.sql", "database d on h:p"
	Tables       int      // how many tables were read
	Outbox, Jobs string   // the tables chosen; Jobs is "" for an outbox alone
	Wrote        []string // the files written, in order (the schema file first, when any)
	// Attention lists the draft's values that need the user: columns not
	// found, status words that are placeholders, words left unmapped.
	Attention []string
}

// readTimeout bounds reading the database and writing the draft.
const readTimeout = 2 * time.Minute

// SchemaPath is the schema file written beside the manifest out when the
// tables are read from a database: out without .yaml/.yml, plus
// .schema.sql.
func SchemaPath(out string) string {
	return strings.TrimSuffix(strings.TrimSuffix(out, ".yaml"), ".yml") + ".schema.sql"
}

func (o Options) validate() error {
	switch {
	case o.DSN == "" && o.DDL == "":
		return errors.New("give --dsn (your dev database, read only) or --ddl (the SQL file that creates your tables)")
	case !strings.HasSuffix(o.Out, ".yaml") && !strings.HasSuffix(o.Out, ".yml"):
		return fmt.Errorf("--out %q: a manifest's name ends in .yaml or .yml (fix: e.g. --out outboxchaos.yaml)", o.Out)
	}
	_, _, err := o.commands()
	return err
}

// commands splits Start and Build into command lines.
func (o Options) commands() (start, build commandLine, err error) {
	if start, err = splitCommand("--start", o.Start); err != nil {
		return start, build, err
	}
	build, err = splitCommand("--build", o.Build)
	return start, build, err
}

// Write reads the tables (o.DDL, else o.DSN), chooses the outbox table and
// the jobs table linked to it if any, proposes the column mapping, where a
// message is (a status map, or states), the sink, delivery, store, clock
// and, from a database, the conventions, and writes the draft to o.Out,
// each value with the reason for it as a comment, and, when the tables
// came from the database, their CREATE TABLE statements to
// SchemaPath(o.Out). It never writes to the database, and without o.Force
// it never replaces a file. The draft is not validated here: load it as
// any manifest (adapters.Open) to see what still needs fixing.
func Write(ctx context.Context, o Options) (Result, error) {
	if err := o.validate(); err != nil {
		return Result{}, err
	}
	schemaOut := SchemaPath(o.Out)
	outputs := []string{o.Out}
	if o.DDL == "" {
		outputs = append(outputs, schemaOut)
	}
	if err := refuseOverwrite(outputs, o.Force); err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	src, err := readSource(ctx, o)
	if err != nil {
		return Result{}, err
	}
	defer src.close()
	res := Result{Source: src.desc, Tables: len(src.tables)}
	pair, err := choosePair(src.tables, o.OutboxTable, o.JobsTable)
	if err != nil {
		return res, err
	}
	res.Outbox = pair.outbox.table.Name
	if pair.jobs != nil {
		res.Jobs = pair.jobs.table.Name
	}
	d, err := src.draft(ctx, o, pair)
	if err != nil {
		return res, err
	}
	if o.DDL == "" {
		d.ddl, d.ddlReason = filepath.Base(schemaOut), "the CREATE TABLE statements of the tables it names, read from "+src.desc+" (written by init; its header says how)"
		if err := writeFile(schemaOut, []byte(schemaFile(src, d)), o.Force); err != nil {
			return res, err
		}
		res.Wrote = append(res.Wrote, schemaOut)
	}
	if err := writeFile(o.Out, []byte(d.render()), o.Force); err != nil {
		return res, err
	}
	res.Wrote = append(res.Wrote, o.Out)
	res.Attention = d.attention()
	return res, nil
}
