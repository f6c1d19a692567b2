package draft

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
)

// draft assembles the manifest draft: names, commands, the DDL file, the
// shape, and the status maps and conventions from the DDL's vocabularies
// and, with a database, the data.
func (s source) draft(ctx context.Context, f Options, pair pairGuess) (draft, error) {
	start, build, err := f.commands()
	if err != nil {
		return draft{}, err
	}
	d := draft{source: s.desc, out: f.Out, pair: pair, store: s.store, storeReason: s.storeReason,
		name: f.Name, nameReason: "given with --name", start: start, startReason: "given with --start", build: build}
	if d.name == "" {
		d.name, d.nameReason = manifestName(pair.outbox.table.Name), "EDIT: from the outbox table's name; it names the dispatcher in reports"
	}
	if d.start.command == "" {
		d.start.command, d.startReason = "./dispatcher", "EDIT: the program that starts one instance (a name on PATH or a path relative to this file)"
	}
	d.clock = guessClock(start, build)
	if f.DDL != "" {
		d.ddl, d.ddlReason = relativeTo(f.Out, f.DDL), "the file init read (relative to this manifest)"
	}
	if err := s.states(ctx, &d); err != nil {
		return d, err
	}
	d.conventions, err = s.guessConventions(ctx, d)
	return d, err
}

// states proposes where a message is: the outbox's status map, or its
// states (with the cursor's group from the data); and the jobs' map.
func (s source) states(ctx context.Context, d *draft) error {
	var err error
	if d.shape = guessShape(d.pair, s.tables, s.store); d.shape == nil {
		if d.outboxStatus, err = s.status(ctx, outboxRole, d.pair.outbox); err != nil {
			return err
		}
	} else if err := s.cursorGroup(ctx, d.shape.cursor); err != nil {
		return err
	}
	if d.pair.jobs != nil {
		d.jobStatus, err = s.status(ctx, jobsRole, *d.pair.jobs)
	}
	return err
}

// cursorGroup reads the consumer groups of the offsets table: the only one
// is the guess; several or none are left to the user, said so.
func (s source) cursorGroup(ctx context.Context, c *cursorGuess) error {
	if c == nil || c.groupColumn == "" || s.db == nil {
		return nil
	}
	groups, err := s.db.distinct(ctx, c.table, c.groupColumn)
	if err != nil {
		return fmt.Errorf("%w (fix: with --ddl and --dsn both, the file must describe the database's tables; or leave one out)", err)
	}
	switch len(groups) {
	case 0:
		c.groupReason = "EDIT: " + c.table + " is empty in the data: name the consumer group your relay writes in " + c.groupColumn
	case 1:
		c.group, c.groupReason = groups[0], "GUESS: the only consumer group in the data"
	default:
		c.groupReason = fmt.Sprintf("EDIT: the data has the groups %s: name the one your relay writes", strings.Join(groups, ", "))
	}
	return nil
}

// status proposes one status map from the table's status column: words,
// or integer codes.
func (s source) status(ctx context.Context, role statusRole, g tableGuess) (statusGuess, error) {
	p, ok := g.picks["status"]
	if !ok {
		return statusGuess{notes: []string{"NOT FOUND: no status column, so no status words; map yours by hand"}}, nil
	}
	c := g.table.Columns[strings.ToLower(p.column)]
	src := statusSource{vocab: g.table.Words(c.Name)}
	codes := integerTypes[c.Type]
	if c.DefaultString || (codes && c.Default != "") {
		src.def = c.Default
	}
	if s.db != nil {
		words, err := s.db.distinct(ctx, g.table.Name, c.Name)
		if err != nil {
			return statusGuess{}, fmt.Errorf("%w (fix: with --ddl and --dsn both, the file must describe the database's tables; or leave one out)", err)
		}
		src.data, src.dataRead = words, true
	}
	if codes {
		return guessCodes(role, src), nil
	}
	return guessStatus(role, src), nil
}

// relativeTo expresses path relative to the manifest's directory, as the
// manifest resolves it.
func relativeTo(manifest, path string) string {
	absM, err1 := filepath.Abs(filepath.Dir(manifest))
	absP, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return path
	}
	rel, err := filepath.Rel(absM, absP)
	if err != nil {
		return absP
	}
	return filepath.ToSlash(rel)
}

// schemaFile is the DDL written beside a draft read from a database: the
// tables the draft names, each after the tables it references, as SHOW
// CREATE TABLE printed it minus the AUTO_INCREMENT counter (MySQL), or as
// init reconstructed it from the catalog, after the ENUM types they use
// (PostgreSQL).
func schemaFile(s source, d draft) string {
	var b strings.Builder
	tables := d.tables()
	fmt.Fprintf(&b, "-- The tables of %s that the draft names, written by `outboxchaos init`\n", oneLine(s.desc))
	if s.store == storePostgres {
		b.WriteString("-- and reconstructed from its catalog (information_schema, pg_catalog): columns,\n")
		b.WriteString("-- defaults, identity and serial columns, keys, checks and foreign keys; not\n")
		b.WriteString("-- pg_dump's output, and indexes are left out. Check it against your migrations.\n")
	} else {
		b.WriteString("-- from SHOW CREATE TABLE.\n")
	}
	b.WriteString("-- The harness applies this file to a fresh database.\n")
	names := map[string]bool{}
	for _, t := range tables {
		names[strings.ToLower(t.Name)] = true
	}
	for _, t := range tables {
		for _, ref := range t.References {
			if !names[strings.ToLower(ref)] {
				fmt.Fprintf(&b, "-- EDIT: %s has a FOREIGN KEY to %s, which this file does not create: drop the constraint or add that table.\n", t.Name, ref)
			}
		}
	}
	for _, st := range usedTypes(s.prelude, tables) {
		b.WriteString("\n" + st + ";\n")
	}
	for _, t := range tables {
		b.WriteString("\n" + freshDDL(t.Statement) + ";\n")
	}
	return b.String()
}

// tables are the tables the draft names, each after those it references.
func (d draft) tables() []schemaddl.Table {
	var list []schemaddl.Table
	if d.pair.jobs != nil {
		list = append(list, d.pair.jobs.table)
	}
	list = append(list, d.pair.outbox.table)
	if d.shape != nil {
		list = append(list, d.shape.side...)
	}
	var out []schemaddl.Table
	placed := map[string]bool{}
	var place func(t schemaddl.Table)
	place = func(t schemaddl.Table) {
		if placed[strings.ToLower(t.Name)] {
			return
		}
		placed[strings.ToLower(t.Name)] = true
		for _, ref := range t.References {
			for _, other := range list {
				if strings.EqualFold(other.Name, ref) {
					place(other)
				}
			}
		}
		out = append(out, t)
	}
	for _, t := range list {
		place(t)
	}
	return out
}

// usedTypes are the CREATE TYPE statements of prelude whose type a column
// of tables has.
func usedTypes(prelude []string, tables []schemaddl.Table) []string {
	used := map[string]bool{}
	for _, t := range tables {
		for _, c := range t.Columns {
			used[c.Type] = true
		}
	}
	var out []string
	for _, st := range prelude {
		if m := createTypeName.FindStringSubmatch(st); m != nil && used[strings.ToLower(strings.Trim(m[1], `"`))] {
			out = append(out, st)
		}
	}
	return out
}

var createTypeName = regexp.MustCompile(`(?is)^\s*CREATE\s+TYPE\s+("[^"]+"|\S+)\s`)

// refuseOverwrite fails, before anything is read or written, when an
// output exists and --force is not given.
func refuseOverwrite(paths []string, force bool) error {
	if force {
		return nil
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("%s exists and init never overwrites a file (fix: pass --force to replace it, or choose another --out)", p)
		}
	}
	return nil
}

// writeFile writes data to path; without force it never replaces a file,
// even one created since refuseOverwrite looked.
func writeFile(path string, data []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !force {
		flags |= os.O_EXCL
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	file, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists and init never overwrites a file (fix: pass --force to replace it, or choose another --out)", path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := file.Write(data); err != nil {
		file.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
