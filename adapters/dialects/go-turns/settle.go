package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// settle writes every decided event of a claim in one READ COMMITTED
// transaction. It first locks, by primary key, the rows still processing
// under the claim's token: a row taken over after its lease ran out is
// someone else's and is left alone. Every write repeats that fence. It
// returns how many rows were still ours.
func (d *dispatcher) settle(ctx context.Context, token string, evs []*event) (int, error) {
	tx, err := d.db.BeginTx(ctx, readCommitted)
	if err != nil {
		return 0, fmt.Errorf("settle: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	ours, err := stillOurs(ctx, tx, token, evs)
	if err != nil {
		return 0, fmt.Errorf("settle: lock our rows: %w", err)
	}
	for _, w := range d.writes(ours) {
		if err := w.exec(ctx, tx, token); err != nil {
			return 0, fmt.Errorf("settle: %s: %w", w.what, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("settle: commit: %w", err)
	}
	return len(ours), nil
}

// stillOurs locks and returns the events of evs still processing under
// token.
func stillOurs(ctx context.Context, tx *sql.Tx, token string, evs []*event) ([]*event, error) {
	ids, args := idList(evs)
	rows, err := tx.QueryContext(ctx, `SELECT id FROM outbox_events FORCE INDEX (PRIMARY)
		WHERE id IN (`+ids+`) AND status = 'processing' AND lock_token = ? FOR UPDATE`, append(args, token)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	mine := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		mine[id] = true
	}
	var out []*event
	for _, ev := range evs {
		if mine[ev.id] {
			out = append(out, ev)
		}
	}
	return out, rows.Err()
}

// write is one fenced statement over a group of events that get the same
// values.
type write struct {
	what string
	sql  string // with "<ids>" for the id list; the fence follows it
	args []any  // before the ids
	evs  []*event
	jobs bool // also move the events' jobs created -> queued
}

func (w write) exec(ctx context.Context, tx *sql.Tx, token string) error {
	ids, idArgs := idList(w.evs)
	args := append(append(append([]any{}, w.args...), idArgs...), token)
	q := strings.Replace(w.sql, "<ids>", ids, 1) + ` AND status = 'processing' AND lock_token = ?`
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	if !w.jobs {
		return nil
	}
	jobArgs := make([]any, len(w.evs))
	for i, ev := range w.evs {
		jobArgs[i] = ev.jobID
	}
	_, err := tx.ExecContext(ctx, `UPDATE ai_jobs SET status = 'queued' WHERE status = 'created' AND id IN (`+ids+`)`, jobArgs...)
	return err
}

// writes groups the events by what they get: published (with their jobs),
// failed with a reason, or pending again after a backoff.
func (d *dispatcher) writes(evs []*event) []write {
	var out []write
	index := map[string]int{}
	group := func(key string, w write, ev *event) {
		if i, ok := index[key]; ok {
			out[i].evs = append(out[i].evs, ev)
			return
		}
		index[key] = len(out)
		w.evs = []*event{ev}
		out = append(out, w)
	}
	for _, ev := range evs {
		switch {
		case ev.outcome == publish:
			group("published", write{what: "mark published", jobs: true,
				sql: `UPDATE outbox_events SET status = 'published', published_at = NOW(6) WHERE id IN (<ids>)`}, ev)
		case ev.outcome == reject:
			group("failed "+ev.reason, d.failWrite(ev.reason), ev)
		case ev.attempts >= d.cfg.maxAttempts:
			why := fmt.Sprintf("attempt %d of %d, giving up: %s", ev.attempts, d.cfg.maxAttempts, ev.reason)
			group("failed "+why, d.failWrite(why), ev)
		default:
			why := fmt.Sprintf("attempt %d of %d failed: %s", ev.attempts, d.cfg.maxAttempts, ev.reason)
			group("retry "+why, write{what: "back off", args: []any{truncate(why, 1024), d.backoff(ev.attempts).Microseconds()},
				sql: `UPDATE outbox_events SET status = 'pending', last_error = ` + fitted + `, available_at = NOW(6) + INTERVAL ? MICROSECOND,
				      locked_by = NULL, lock_token = NULL, locked_until = NULL WHERE id IN (<ids>)`}, ev)
		}
	}
	return out
}

func (d *dispatcher) failWrite(why string) write {
	return write{what: "mark failed", args: []any{truncate(why, 1024)},
		sql: `UPDATE outbox_events SET status = 'failed', last_error = ` + fitted + ` WHERE id IN (<ids>)`}
}

// backoff after the n-th attempt: base doubled n-1 times, at most the
// maximum.
func (d *dispatcher) backoff(n int) time.Duration {
	b := d.cfg.backoffBase
	for i := 1; i < n && b < d.cfg.backoffMax; i++ {
		b *= 2
	}
	return min(b, d.cfg.backoffMax)
}

// fitted is the value written to last_error for a reason passed as its
// parameter: the server cuts it to the column's width in characters, read
// from information_schema in the same statement (1024, the contract's width,
// if the column is not found there). Under strict mode the server refuses a
// text longer than the column (1406) instead of cutting it; a deployment's
// column may be narrower than the contract's.
const fitted = `LEFT(?, COALESCE((SELECT CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS
	WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_events' AND COLUMN_NAME = 'last_error'), 1024))`

// truncate makes s valid UTF-8 (an invalid byte would be refused, 1366) and
// cuts it to at most n characters.
func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
