package reference

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// Event is one claimed outbox row.
type Event struct {
	ID       int64
	Type     string // event_type
	JobID    string // aggregate_id: the ai_jobs.id, also the BullMQ jobId
	Attempts int    // attempts after this claim: the number of claims so far
}

// Batch is the result of one claim: the rows this instance now holds, all
// under one fresh lock token.
type Batch struct {
	Token    string
	Events   []Event
	deadline time.Time // local: the clock before the claim began, plus the lease
	started  time.Time // wall clock when the claim began, for the batch duration
}

// Deadline is the conservative local end of the lease: the local time read
// before the claim began, plus the lease. The database's locked_until is
// later, never earlier, so work checked against Deadline is inside the lease.
func (b *Batch) Deadline() time.Time { return b.deadline }

// IDs returns the event ids of the batch, in claim order.
func (b *Batch) IDs() []int64 {
	ids := make([]int64, len(b.Events))
	for i, e := range b.Events {
		ids[i] = e.ID
	}
	return ids
}

// Claim takes up to BatchSize due pending events in one short transaction
// (see doc.go, "Claim"): SELECT ... FOR UPDATE SKIP LOCKED, then one UPDATE to
// processing with this instance's id, a fresh token, locked_until = now +
// lease on the database clock and attempts + 1. An empty batch is not an
// error.
func (d *Dispatcher) Claim(ctx context.Context) (*Batch, error) {
	token, err := dispatchkit.NewToken()
	if err != nil {
		return nil, fmt.Errorf("claim batch: %w", err)
	}
	b := &Batch{Token: token, deadline: d.local().Add(d.cfg.Lease), started: time.Now()}
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		b.Events = nil // a restarted transaction claims afresh
		events, err := d.selectDue(ctx, tx)
		if err != nil || len(events) == 0 {
			return err
		}
		b.Events = events
		return d.markClaimed(ctx, tx, b)
	})
	if err != nil {
		return nil, fmt.Errorf("claim batch: %w", err)
	}
	d.metrics.claimed.Add(float64(len(b.Events)))
	return b, nil
}

// selectDue locks up to BatchSize due pending rows, skipping rows another
// session holds.
func (d *Dispatcher) selectDue(ctx context.Context, tx *sql.Tx) ([]Event, error) {
	return dispatchkit.QueryRows(ctx, tx, "select due events", scanDue,
		`SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		 WHERE status = 'pending' AND available_at <= `+sqlNow+`
		 ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED`,
		d.nowArg(), d.cfg.BatchSize)
}

// scanDue reads a due event; its attempts count the claim the UPDATE below
// writes.
func scanDue(rows *sql.Rows) (Event, error) {
	var e Event
	err := rows.Scan(&e.ID, &e.Type, &e.JobID, &e.Attempts)
	e.Attempts++
	return e, err
}

// markClaimed writes the claim on the locked rows. The status guard is
// redundant under the row locks; it keeps the statement safe on its own.
func (d *Dispatcher) markClaimed(ctx context.Context, tx *sql.Tx, b *Batch) error {
	ids := b.IDs()
	args := append([]any{d.cfg.InstanceID, b.Token, d.nowArg(), d.cfg.Lease.Microseconds()}, dispatchkit.Args(ids)...)
	res, err := tx.ExecContext(ctx,
		`UPDATE `+dispatchkit.OutboxByID+`
		 SET status = 'processing', locked_by = ?, lock_token = ?,
		     locked_until = `+sqlNow+` + INTERVAL ? MICROSECOND, attempts = attempts + 1
		 WHERE id IN `+dispatchkit.InList(len(ids))+` AND status = 'pending'`, args...)
	if err != nil {
		return fmt.Errorf("mark claimed: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(ids)) {
		return fmt.Errorf("mark claimed: updated %d of %d locked rows (%v)", n, len(ids), err)
	}
	return nil
}
