package dispatcher

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// event is one claimed outbox row.
type event struct {
	id       int64
	typ      string // event_type
	jobID    string // aggregate_id: the ai_jobs.id
	attempts int    // attempts after this claim
}

// batch is what one claim took, under one fresh token.
type batch struct {
	token  string
	events []event
	until  time.Time // lease-end-fence: the lease end the claim wrote, as computed here
}

func (b *batch) ids() []int64 {
	ids := make([]int64, len(b.events))
	for i, e := range b.events {
		ids[i] = e.id
	}
	return ids
}

// querier is a transaction or the pool.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// claim takes up to batchSize due events in one transaction, in the flow's
// way (doc.go, "Claim"). An empty batch is not an error.
func (d *Dispatcher) claim(ctx context.Context) (*batch, error) {
	token, err := dispatchkit.NewToken()
	if err != nil {
		return nil, fmt.Errorf("claim batch: %w", err)
	}
	b := &batch{token: token}
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	err = dispatchkit.InTx(ctx, d.db, func(tx *sql.Tx) error {
		switch {
		case d.flow.exclusion == exclusionRedisLockOnly:
			return d.claimUnderLock(ctx, tx, b)
		case d.flow.claim == claimCompareAndSet:
			return d.claimOne(ctx, tx, b)
		case d.flow.claim == claimAdoptUnregistered:
			return d.claimAdopting(ctx, tx, b) // registry.go
		}
		locked := d.flow.claim != claimSelectThenUpdate
		events, err := d.selectDue(ctx, tx, locked)
		if err != nil || len(events) == 0 {
			return err
		}
		b.events = events
		return d.markClaimed(ctx, tx, b, locked)
	})
	if err != nil {
		return nil, fmt.Errorf("claim batch: %w", err)
	}
	for _, e := range b.events {
		d.cursor = max(d.cursor, e.id)
	}
	return b, nil
}

// selectDue reads up to batchSize due pending rows; with lock, it locks them
// and skips rows another session holds (the base). Without (the
// select-then-update bug), two instances read the same rows.
func (d *Dispatcher) selectDue(ctx context.Context, q querier, lock bool) ([]event, error) {
	if d.flow.claim == claimCursor {
		return d.selectPastCursor(ctx, q)
	}
	return d.selectCandidates(ctx, q, lock, d.batchSize())
}

// selectPastCursor is cursor-claim: like the base's locked read, but a row
// never claimed is taken only past the highest id this instance claimed so
// far (a high-water mark); a retry or a recovered claim (attempts > 0) is
// taken by its status as in the base. A row whose id was handed out before
// the mark but committed after it is never claimed.
func (d *Dispatcher) selectPastCursor(ctx context.Context, q querier) ([]event, error) {
	return scanEvents(ctx, q, `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		WHERE status = 'pending' AND available_at <= NOW(6) AND (id > ? OR attempts > 0)
		ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED`, d.cursor, d.batchSize())
}

func (d *Dispatcher) selectCandidates(ctx context.Context, q querier, lock bool, limit int) ([]event, error) {
	query := `SELECT id, event_type, aggregate_id, attempts FROM outbox_events e
		WHERE status = 'pending' AND available_at <= NOW(6) AND ` + d.headOfAggregate() + `
		ORDER BY available_at, id LIMIT ?`
	if lock {
		query += ` FOR UPDATE SKIP LOCKED`
	}
	return scanEvents(ctx, q, query, limit)
}

// markClaimed writes the claim on b's rows: processing, this instance, b's
// token, a lease on the database clock, attempts + 1. With guard (the base)
// it changes only rows still pending and insists on all of them; without
// (select-then-update) it overwrites whatever the rows hold.
func (d *Dispatcher) markClaimed(ctx context.Context, ex querier, b *batch, guard bool) error {
	lease, leaseArg := `NOW(6) + INTERVAL ? MICROSECOND`, any(d.cfg.Lease.Microseconds())
	if !d.flow.dbClockLease {
		lease, leaseArg = `?`, time.Now().Add(d.cfg.Lease).UTC() // app-clock-lease: the instance's own clock
	}
	if d.flow.localTimes {
		lease, leaseArg = `?`, localWall(time.Now().Add(d.cfg.Lease)) // local-zone-times
	}
	if d.flow.leaseEndFence {
		// lease-end-fence: the lease end, to the microsecond, is also
		// what its finalize will recognise its rows by.
		b.until = time.Now().Add(d.cfg.Lease).UTC().Truncate(time.Microsecond)
		lease, leaseArg = `?`, b.until
	}
	query := `UPDATE ` + dispatchkit.OutboxByID + ` SET status = 'processing', locked_by = ?, lock_token = ?,
		locked_until = ` + lease + `, attempts = attempts + 1
		WHERE id IN ` + dispatchkit.InList(len(b.events))
	if guard {
		query += ` AND status = 'pending'`
	}
	args := append([]any{d.cfg.InstanceID, b.token, leaseArg}, dispatchkit.Args(b.ids())...)
	res, err := ex.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("mark claimed: %w", err)
	}
	if n, err := res.RowsAffected(); guard && (err != nil || n != int64(len(b.events))) {
		return fmt.Errorf("mark claimed: updated %d of %d locked rows (%v)", n, len(b.events), err)
	}
	return nil
}

// casCandidates is how many due rows the compare-and-set claim reads, so
// that losing one race moves on to the next row instead of idling a poll.
const casCandidates = 10

// claimOne is the nest-single mode's compare-and-set claim: read the oldest
// due rows without a lock, then take the first one that is still pending
// (UPDATE ... WHERE id = ? AND status = 'pending'). A row another instance
// took first matches nothing and the next candidate is tried.
func (d *Dispatcher) claimOne(ctx context.Context, tx *sql.Tx, b *batch) error {
	candidates, err := d.selectCandidates(ctx, tx, false, casCandidates)
	if err != nil {
		return err
	}
	for _, c := range candidates {
		res, err := tx.ExecContext(ctx, `UPDATE `+dispatchkit.OutboxByID+` SET status = 'processing', locked_by = ?, lock_token = ?,
			locked_until = NOW(6) + INTERVAL ? MICROSECOND, attempts = attempts + 1
			WHERE id = ? AND status = 'pending' AND available_at <= NOW(6)`,
			d.cfg.InstanceID, b.token, d.cfg.Lease.Microseconds(), c.id)
		if err != nil {
			return fmt.Errorf("compare-and-set claim: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			if err == nil {
				b.events, err = d.readHeld(ctx, tx, c.id, b.token)
			}
			return err
		}
	}
	return nil // every candidate was taken by another instance
}

// readHeld reads back a row this claim just took: its attempts may have
// moved since the unlocked read.
func (d *Dispatcher) readHeld(ctx context.Context, tx *sql.Tx, id int64, token string) ([]event, error) {
	held, err := scanEvents(ctx, tx, `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		WHERE id = ? AND lock_token = ?`, id, token)
	for i := range held {
		held[i].attempts-- // scanEvents counts a claim; this one is already in the row
	}
	return held, err
}

// claimUnderLock is the global-lock bug's claim: the Redis lock is trusted
// to make this instance the only dispatcher, so it reads due pending rows AND
// every processing row (a previous holder's, presumed dead) without row
// locks, and takes them by id with no guard and no lease.
func (d *Dispatcher) claimUnderLock(ctx context.Context, tx *sql.Tx, b *batch) error {
	events, err := scanEvents(ctx, tx, `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		WHERE (status = 'pending' AND available_at <= NOW(6)) OR status = 'processing'
		ORDER BY id LIMIT ?`, d.batchSize())
	if err != nil || len(events) == 0 {
		return err
	}
	b.events = events
	args := append([]any{d.cfg.InstanceID, b.token}, dispatchkit.Args(b.ids())...)
	_, err = tx.ExecContext(ctx, `UPDATE `+dispatchkit.OutboxByID+` SET status = 'processing', locked_by = ?, lock_token = ?,
		locked_until = NULL, attempts = attempts + 1 WHERE id IN `+dispatchkit.InList(len(events)), args...)
	if err != nil {
		return fmt.Errorf("claim under the dispatch lock: %w", err)
	}
	return nil
}

// scanEvents runs a query returning id, event_type, aggregate_id, attempts
// and counts this claim in attempts.
func scanEvents(ctx context.Context, q dispatchkit.Querier, query string, args ...any) ([]event, error) {
	return dispatchkit.QueryRows(ctx, q, "select events", func(rows *sql.Rows) (event, error) {
		var e event
		err := rows.Scan(&e.id, &e.typ, &e.jobID, &e.attempts)
		e.attempts++
		return e, err
	}, query, args...)
}

// headOfAggregate is the claim's per-aggregate order guard (doc.go,
// "Order"): an event whose payload names an aggregate is due only when no
// earlier event of that aggregate is still pending or processing. The
// subquery is a plain (consistent) read, so an earlier event another
// instance has locked but not yet committed still counts as pending. In
// order-after-backoff the earlier event counts only while it is due: one
// waiting out its backoff is overtaken.
func (d *Dispatcher) headOfAggregate() string {
	waiting := ""
	if !d.flow.orderAcrossBackoff {
		waiting = ` AND o.available_at <= NOW(6)` // order-after-backoff: one in backoff does not hold the others
	}
	return `(JSON_VALUE(e.payload, '$.aggregate') IS NULL OR NOT EXISTS (SELECT 1 FROM outbox_events o
		WHERE o.id < e.id AND o.status IN ('pending', 'processing')` + waiting + `
		AND JSON_VALUE(o.payload, '$.aggregate') = JSON_VALUE(e.payload, '$.aggregate')))`
}
