package verdict

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// SchemaVersion is the version of the results.json schema documented in
// doc.go. It changes whenever a field changes meaning or goes away.
const SchemaVersion = 2

// File is the name of the results file in a run folder.
const File = "results.json"

// Results is the content of results.json: one run's verdict, every invariant's
// result and the run's numbers. See doc.go for the schema, field by field.
type Results struct {
	SchemaVersion int           `json:"schema_version"`
	Run           history.Meta  `json:"run"`
	Verdict       check.Verdict `json:"verdict"`
	// VerdictReason says why the verdict is not a pass (check.Decide).
	VerdictReason string          `json:"verdict_reason,omitempty"`
	Findings      []check.Finding `json:"findings"`
	Invariants    []check.Result  `json:"invariants"`
	// Landing is the scenario's landing requirements, judged: one not met
	// makes a run without violations unknown.
	Landing []check.Landing `json:"landing"`
	// Declarations are the manifest lines that would settle what the run
	// left unknown for lack of a declaration (check.Declarations): typed,
	// with the YAML rendered once, so the page and the CLI print the same.
	Declarations []declare.Suggestion `json:"declarations"`
	// LostAdds are the jobs Redis lost after running their adds
	// (check.LostAdds): the environment's doing, never a violation of the
	// dispatcher's; empty unless the run made Redis lose writes.
	LostAdds []check.LostAdd  `json:"lost_adds"`
	Counts   Counts           `json:"counts"`
	Latency  Latency          `json:"latency"`
	Duration history.Duration `json:"duration"`
	Faults   []history.Fault  `json:"faults"`
	Gaps     []history.Gap    `json:"gaps"`
}

// Counts are the run's sizes.
type Counts struct {
	Events      int `json:"events"`
	Valid       int `json:"valid"`
	Poison      int `json:"poison"`
	Published   int `json:"published"`
	Failed      int `json:"failed"`
	ValidFailed int `json:"valid_failed"` // valid events that ended failed
	Unfinished  int `json:"unfinished"`
	JobsCreated int `json:"jobs_created"`
	Takes       int `json:"takes"`
	Transitions int `json:"transitions"`
	Faults      int `json:"faults"`
	Instances   int `json:"instances"`
	Gaps        int `json:"gaps"`
}

// Latency is commit-to-published latency over every published event, in
// milliseconds.
type Latency struct {
	Samples int     `json:"samples"`
	P50Ms   float64 `json:"p50_ms"`
	P99Ms   float64 `json:"p99_ms"`
	MaxMs   float64 `json:"max_ms"`
}

// Encode writes r as results.json holds it: indented JSON, one object.
func Encode(w io.Writer, r Results) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode %s: %w", File, err)
	}
	return nil
}

// Read reads a results.json, refusing a schema version it does not know.
func Read(path string) (Results, error) {
	var r Results
	b, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("read results: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("read results %s: %w", path, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return r, fmt.Errorf("read results %s: schema version %d, this build reads %d: re-check and re-render the run from its stored history with `outboxchaos report %s`",
			path, r.SchemaVersion, SchemaVersion, filepath.Dir(path))
	}
	return r, nil
}
