package draft

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
)

// draft assembles the manifest draft: names, the DDL file, and the status
// maps from the DDL's vocabularies and, with a database, the data.
func (s source) draft(ctx context.Context, f Options, pair pairGuess) (draft, error) {
	d := draft{source: s.desc, out: f.Out, pair: pair,
		name: f.Name, nameReason: "given with --name",
		start: f.Start, startReason: "given with --start; add its arguments under args"}
	if d.name == "" {
		d.name, d.nameReason = manifestName(pair.outbox.table.Name), "EDIT: from the outbox table's name; it names the dispatcher in reports"
	}
	if d.start == "" {
		d.start, d.startReason = "./dispatcher", "EDIT: the program that starts one instance (a name on PATH or a path relative to this file)"
	}
	if f.DDL != "" {
		d.ddl, d.ddlReason = relativeTo(f.Out, f.DDL), "the file init read (relative to this manifest)"
	}
	var err error
	if d.outboxStatus, err = s.status(ctx, outboxRole, pair.outbox); err != nil {
		return d, err
	}
	if d.jobStatus, err = s.status(ctx, jobsRole, pair.jobs); err != nil {
		return d, err
	}
	return d, nil
}

// status proposes one status map from the table's status column.
func (s source) status(ctx context.Context, role statusRole, g tableGuess) (statusGuess, error) {
	p, ok := g.picks["status"]
	if !ok {
		return statusGuess{notes: []string{"NOT FOUND: no status column, so no status words; map yours by hand"}}, nil
	}
	c := g.table.Columns[strings.ToLower(p.column)]
	src := statusSource{vocab: g.table.Words(c.Name)}
	if c.DefaultString {
		src.def = c.Default
	}
	if s.db != nil {
		words, err := s.db.distinct(ctx, g.table.Name, c.Name)
		if err != nil {
			return statusGuess{}, fmt.Errorf("%w (fix: with --ddl and --dsn both, the file must describe the database's tables; or leave one out)", err)
		}
		src.data, src.dataRead = words, true
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
// jobs table first (the outbox may reference it), each as SHOW CREATE
// TABLE printed it, minus the AUTO_INCREMENT counter.
func schemaFile(desc string, pair pairGuess) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- The outbox and jobs tables of %s, written by `outboxchaos init`\n", oneLine(desc))
	b.WriteString("-- from SHOW CREATE TABLE. The harness applies this file to a fresh database.\n")
	for _, t := range []schemaddl.Table{pair.jobs.table, pair.outbox.table} {
		for _, ref := range t.References {
			if !strings.EqualFold(ref, pair.jobs.table.Name) && !strings.EqualFold(ref, pair.outbox.table.Name) {
				fmt.Fprintf(&b, "-- EDIT: %s has a FOREIGN KEY to %s, which this file does not create: drop the constraint or add that table.\n", t.Name, ref)
			}
		}
	}
	for _, t := range []schemaddl.Table{pair.jobs.table, pair.outbox.table} {
		b.WriteString("\n" + freshDDL(t.Statement) + ";\n")
	}
	return b.String()
}

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
