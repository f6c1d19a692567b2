package workload

import (
	"context"
	"database/sql"
	"fmt"
	"sort"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// rowStep moves a jobs row to one status, fenced on its current status.
type rowStep struct {
	to    string
	query string
	args  []any // the fence words; the id and the target come first
}

// rowMover moves a jobs row on as a worker runs its job.
type rowMover struct {
	db    *sql.DB
	steps []rowStep
}

// newRowMover builds the running and succeeded steps the mapping allows. Each
// step is fenced on every word for an earlier canonical state, so a row in a
// later or unknown state is never touched.
func newRowMover(db *sql.DB, s sqlText, m schema.Mapping) *rowMover {
	rm := &rowMover{db: db}
	earlier := []string{history.JobCreated, history.JobQueued}
	for _, target := range []string{history.JobRunning, history.JobSucceeded} {
		if to, err := m.JobWord(target); err == nil {
			rm.steps = append(rm.steps, newRowStep(s, m, to, wordsFor(m.JobStatus, earlier)))
		}
		earlier = append(earlier, target)
	}
	return rm
}

func newRowStep(s sqlText, m schema.Mapping, to string, from []string) rowStep {
	j := m.Jobs
	q := fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = %s AND %s IN (%s)", s.q(j.Table),
		s.q(j.Status), s.ph(1, 1), s.q(j.ID), s.ph(2, 1), s.q(j.Status), s.ph(3, len(from)))
	args := make([]any, len(from))
	for i, w := range from {
		args[i] = w
	}
	return rowStep{to: to, query: q, args: args}
}

// wordsFor lists, sorted, the dispatcher's words whose canonical status is
// one of canonical.
func wordsFor(words map[string]string, canonical []string) []string {
	want := map[string]bool{}
	for _, c := range canonical {
		want[c] = true
	}
	var out []string
	for w, c := range words {
		if want[c] {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// move runs every step for the row id. A step that matches no row (already
// moved on, or never created) is not an error.
func (rm *rowMover) move(ctx context.Context, id string) error {
	for _, s := range rm.steps {
		args := append([]any{s.to, id}, s.args...)
		if _, err := rm.db.ExecContext(ctx, s.query, args...); err != nil {
			return fmt.Errorf("move job row %s to %q: %w", id, s.to, err)
		}
	}
	return nil
}
