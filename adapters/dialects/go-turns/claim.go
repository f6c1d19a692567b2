package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// event is one claimed outbox row and what the turn decided for it.
type event struct {
	id       int64
	kind     string // event_type
	jobID    string // aggregate_id
	attempts int    // after this claim: attempts count claims

	queue, jobStatus string // the ai_jobs row, when found
	found            bool

	outcome outcome
	reason  string // last_error for a failure
}

// outcome is what the settle writes for an event.
type outcome int

const (
	undecided outcome = iota // still to be added
	publish                  // the job is in Redis, or was dispatched before
	retry                    // a transient failure: back off, or fail at max attempts
	reject                   // a permanent failure: failed at once
)

var readCommitted = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

// claim takes up to batch events in one READ COMMITTED transaction: claims
// whose lease ran out first (the takeover that recovers a dead owner's
// events), then due pending rows, both FOR UPDATE SKIP LOCKED so that two
// claimers never wait for each other or for a producer's open insert. The
// rows get this claim's token, owner and lease (NOW(6) + lease), and one
// more attempt; their ai_jobs rows are read before the commit (readJobs).
func (d *dispatcher) claim(ctx context.Context, token string) ([]*event, error) {
	tx, err := d.db.BeginTx(ctx, readCommitted)
	if err != nil {
		return nil, fmt.Errorf("claim: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	expired, err := d.lockDue(ctx, tx, `status = 'processing' AND locked_until < NOW(6)`, d.cfg.batch)
	if err != nil {
		return nil, fmt.Errorf("claim: expired leases: %w", err)
	}
	pending, err := d.lockDue(ctx, tx, `status = 'pending' AND available_at <= NOW(6)`, d.cfg.batch-len(expired))
	if err != nil {
		return nil, fmt.Errorf("claim: due events: %w", err)
	}
	evs := append(expired, pending...)
	if len(evs) == 0 {
		return nil, nil
	}
	late, err := readJobs(ctx, tx, evs)
	if err != nil {
		return nil, fmt.Errorf("claim: read ai_jobs: %w", err)
	}
	if late > 0 {
		d.log.Printf("claim: %d ai_jobs rows were found only by a locking read (their producers were committing)", late)
	}
	ids, args := idList(evs)
	args = append([]any{d.cfg.instance, token, d.cfg.lease.Microseconds()}, args...)
	if _, err := tx.ExecContext(ctx, `UPDATE outbox_events
		SET status = 'processing', locked_by = ?, lock_token = ?,
		    locked_until = NOW(6) + INTERVAL ? MICROSECOND, attempts = attempts + 1
		WHERE id IN (`+ids+`)`, args...); err != nil {
		return nil, fmt.Errorf("claim: mark %d events processing: %w", len(evs), err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("claim: commit: %w", err)
	}
	for _, ev := range evs {
		ev.attempts++
	}
	d.mark.saw(evs)
	return evs, nil
}

// lockDue locks up to limit rows matching where, in the claim index's
// order, skipping rows another transaction holds.
func (d *dispatcher) lockDue(ctx context.Context, tx *sql.Tx, where string, limit int) ([]*event, error) {
	if limit <= 0 {
		return nil, nil
	}
	args := []any{}
	if d.cfg.highWaterMarked {
		where += ` AND id > ?`
		args = append(args, d.mark.get())
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		WHERE `+where+` ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var evs []*event
	for rows.Next() {
		ev := &event{}
		if err := rows.Scan(&ev.id, &ev.kind, &ev.jobID, &ev.attempts); err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, rows.Err()
}

// idList is "?, ?, ..." for evs and their ids as arguments.
func idList(evs []*event) (string, []any) {
	args := make([]any, len(evs))
	for i, ev := range evs {
		args[i] = ev.id
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(evs)), ", "), args
}

// highWaterMark is the planted bug's memory: the highest id this instance
// has claimed. Only the plant reads it.
type highWaterMark struct{ id int64 }

func (m *highWaterMark) get() int64 { return m.id }

func (m *highWaterMark) saw(evs []*event) {
	for _, ev := range evs {
		m.id = max(m.id, ev.id)
	}
}
