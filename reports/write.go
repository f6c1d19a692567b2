package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// Files WriteRun writes into a run folder.
const (
	FileHTML    = "index.html"
	FileResults = verdict.File
	FileJUnit   = "junit.xml"
)

// WriteRun writes dir/index.html, dir/results.json and dir/junit.xml for one
// run (dir is created if missing). Each file is written whole or not at all.
// No password from a DSN or URL reaches any of them.
func WriteRun(dir string, run history.Run, results []check.Result) error {
	_, err := WriteRunResults(dir, run, results)
	return err
}

// WriteRunResults is WriteRun that also returns the verdict.Results it
// wrote into results.json, so that a caller (the CLI's summary page,
// chaostest's failure message) takes them from the run instead of reading
// the file back: the file is an output, not a channel. run and results
// are what runner.Run returns (Outcome.History, Outcome.Results).
func WriteRunResults(dir string, run history.Run, results []check.Result) (verdict.Results, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return verdict.Results{}, fmt.Errorf("write report: %w", err)
	}
	res := Build(run, results)
	red := history.Redact(run)
	red.Sort()
	if err := writeFile(filepath.Join(dir, FileResults), func(w io.Writer) error { return verdict.Encode(w, res) }); err != nil {
		return verdict.Results{}, err
	}
	if err := writeFile(filepath.Join(dir, FileJUnit), func(w io.Writer) error { return writeJUnit(w, []verdict.Results{res}) }); err != nil {
		return verdict.Results{}, err
	}
	if err := writeFile(filepath.Join(dir, FileHTML), func(w io.Writer) error { return renderRun(w, red, res) }); err != nil {
		return verdict.Results{}, err
	}
	return res, nil
}

// writeFile writes path through a temporary file renamed into place, so a
// reader never sees half a report.
func writeFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	bw := bufio.NewWriterSize(tmp, 64<<10)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
