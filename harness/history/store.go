package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Duration is a time.Duration that reads and writes as Go duration text ("2s").
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes the duration as text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads text ("150ms") or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err2 := json.Unmarshal(b, &n); err2 != nil {
			return fmt.Errorf("duration: want text like \"2s\": %w", err)
		}
		*d = Duration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}

type jsonlFile struct {
	name string
	get  func(*Run) any
	read func(*Run, []byte) error
}

func lines[T any](name string, field func(*Run) *[]T) jsonlFile {
	return jsonlFile{
		name: name,
		get:  func(r *Run) any { return *field(r) },
		read: func(r *Run, b []byte) error {
			var v T
			if err := json.Unmarshal(b, &v); err != nil {
				return err
			}
			*field(r) = append(*field(r), v)
			return nil
		},
	}
}

var files = []jsonlFile{
	lines("events.jsonl", func(r *Run) *[]Event { return &r.Events }),
	lines("transitions.jsonl", func(r *Run) *[]Transition { return &r.Transitions }),
	lines("stream.jsonl", func(r *Run) *[]StreamEntry { return &r.Stream }),
	lines("keys.jsonl", func(r *Run) *[]KeyNote { return &r.Keys }),
	lines("takes.jsonl", func(r *Run) *[]Take { return &r.Takes }),
	lines("faults.jsonl", func(r *Run) *[]Fault { return &r.Faults }),
	lines("processes.jsonl", func(r *Run) *[]ProcessEvent { return &r.Processes }),
	lines("gaps.jsonl", func(r *Run) *[]Gap { return &r.Gaps }),
	lines("appends.jsonl", func(r *Run) *[]Append { return &r.Appends }),
	lines("commands.jsonl", func(r *Run) *[]Command { return &r.Commands }),
}

// Write stores the run in dir (created if missing) in the layout of doc.go,
// redacted (see Redact): no file it writes carries a password.
func Write(dir string, run Run) error {
	run = Redact(run)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	if err := writeJSON(filepath.Join(dir, "meta.json"), run.Meta); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "final.json"), run.Final); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeLines(filepath.Join(dir, f.name), f.get(&run)); err != nil {
			return err
		}
	}
	return nil
}

// Load reads a run stored by Write. A missing jsonl file reads as empty; a
// missing meta.json is an error (the folder is not a run).
func Load(dir string) (Run, error) {
	var run Run
	if err := readJSON(filepath.Join(dir, "meta.json"), &run.Meta); err != nil {
		return run, fmt.Errorf("load run %s: %w", dir, err)
	}
	if err := readJSON(filepath.Join(dir, "final.json"), &run.Final); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return run, fmt.Errorf("load run %s: %w", dir, err)
	}
	for _, f := range files {
		if err := readLines(filepath.Join(dir, f.name), &run, f.read); err != nil {
			return run, fmt.Errorf("load run %s: %w", dir, err)
		}
	}
	run.Sort()
	return run, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

func writeLines(path string, slice any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	b, _ := json.Marshal(slice)
	var items []json.RawMessage
	_ = json.Unmarshal(b, &items)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

func readLines(path string, run *Run, read func(*Run, []byte) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := read(run, sc.Bytes()); err != nil {
			return fmt.Errorf("%s line %d: %w", filepath.Base(path), n, err)
		}
	}
	return sc.Err()
}
