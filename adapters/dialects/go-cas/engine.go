package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

type engine struct {
	o   options
	db  *sql.DB
	rdb *redis.Client
	add *redis.Script
	lg  *log.Logger
	col column // last_error's width (width.go)
}

// item is one claimed event.
type item struct {
	ID       int64
	Type     string
	Job      string
	Failures int // attempts so far: this dialect counts them at failure

	Queue, JobState string
	HasJob          bool

	Verdict string // "publish", "fail", "retry"
	Why     string
}

var rc = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("cas-%x", b)
}

// round: claim, look up jobs, add, settle. It returns how many it claimed.
func (e *engine) round(ctx context.Context) int {
	ctx, cancel := context.WithTimeout(ctx, e.o.lease)
	defer cancel()
	token := newToken()
	items, err := e.claim(ctx, token)
	if err != nil {
		e.lg.Printf("claim: %v", err)
		return 0
	}
	if len(items) == 0 {
		return 0
	}
	if err := e.lookup(ctx, items); err != nil {
		for _, it := range items {
			it.Verdict, it.Why = "retry", "look up ai_jobs: "+err.Error()
		}
	} else {
		e.validate(items)
		e.publish(ctx, items)
	}
	if err := e.settle(ctx, token, items); err != nil {
		e.lg.Printf("settle: %v", err)
	}
	return len(items)
}

// claim is a compare-and-set: one UPDATE takes due pending rows, and rows
// whose lease ran out (a takeover), under a fresh token; a SELECT by that
// token reads what it got. Attempts are not touched here.
func (e *engine) claim(ctx context.Context, token string) ([]*item, error) {
	if e.o.bug == "select-then-update" {
		if err := e.claimRacy(ctx, token); err != nil {
			return nil, err
		}
	} else {
		if err := e.compareAndSet(ctx, token); err != nil {
			return nil, fmt.Errorf("compare-and-set: %w", err)
		}
	}
	rows, err := e.db.QueryContext(ctx, `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		WHERE lock_token = ? AND status = 'processing' ORDER BY id`, token)
	if err != nil {
		return nil, fmt.Errorf("read claimed rows: %w", err)
	}
	defer rows.Close()
	var out []*item
	for rows.Next() {
		it := &item{}
		if err := rows.Scan(&it.ID, &it.Type, &it.Job, &it.Failures); err != nil {
			return nil, fmt.Errorf("read claimed rows: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// compareAndSet takes up to a batch of claimable rows under token in one
// UPDATE. It walks the primary key from the oldest open row (a plain read of
// the status index, which waits on nothing): read committed, a scan of the
// clustered index passes over a producer's row whose INSERT is not committed
// yet, where a locking scan of the status index would wait for that
// producer's COMMIT and stall every claim behind it.
func (e *engine) compareAndSet(ctx context.Context, token string) error {
	tx, err := e.db.BeginTx(ctx, rc)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var low sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MIN(id) FROM outbox_events
		WHERE status IN ('pending', 'processing')`).Scan(&low); err != nil {
		return fmt.Errorf("oldest open row: %w", err)
	}
	if !low.Valid {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE outbox_events FORCE INDEX (PRIMARY)
		SET locked_by = ?, lock_token = ?, locked_until = NOW(6) + INTERVAL ? MICROSECOND, status = 'processing'
		WHERE id >= ? AND `+e.claimable()+` ORDER BY id LIMIT ?`,
		e.o.instanceID, token, e.o.lease.Microseconds(), low.Int64, e.o.batch); err != nil {
		return err
	}
	return tx.Commit()
}

// claimable is the claim's condition: due pending rows, and rows whose
// lease ran out (the takeover that is this dialect's lease recovery; the
// no-lease-recovery plant leaves it out).
func (e *engine) claimable() string {
	if e.o.bug == "no-lease-recovery" {
		return `status = 'pending' AND available_at <= NOW(6)`
	}
	return `((status = 'pending' AND available_at <= NOW(6)) OR (status = 'processing' AND locked_until < NOW(6)))`
}

// claimRacy is the select-then-update plant: a plain SELECT, then an UPDATE
// by id with no status guard and no row lock held in between.
func (e *engine) claimRacy(ctx context.Context, token string) error {
	rows, err := e.db.QueryContext(ctx, `SELECT id FROM outbox_events WHERE `+e.claimable()+` ORDER BY id LIMIT ?`, e.o.batch)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, fmt.Sprint(id))
	}
	rows.Close()
	if len(ids) == 0 {
		return rows.Err()
	}
	_, err = e.db.ExecContext(ctx, `UPDATE outbox_events
		SET locked_by = ?, lock_token = ?, locked_until = NOW(6) + INTERVAL ? MICROSECOND, status = 'processing'
		WHERE id IN (`+strings.Join(ids, ",")+`)`, e.o.instanceID, token, e.o.lease.Microseconds())
	return err
}

func (e *engine) lookup(ctx context.Context, items []*item) error {
	args := make([]any, len(items))
	for i, it := range items {
		args[i] = it.Job
	}
	rows, err := e.db.QueryContext(ctx, `SELECT id, queue_name, status FROM ai_jobs WHERE id IN (?`+strings.Repeat(",?", len(items)-1)+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, q, st string
		if err := rows.Scan(&id, &q, &st); err != nil {
			return err
		}
		for _, it := range items {
			if it.Job == id {
				it.HasJob, it.Queue, it.JobState = true, q, st
			}
		}
	}
	return rows.Err()
}

func (e *engine) validate(items []*item) {
	for _, it := range items {
		switch {
		case it.Type != "ai.job.enqueue":
			it.Verdict, it.Why = "fail", "event_type "+it.Type+" is not ai.job.enqueue"
		case !it.HasJob:
			it.Verdict, it.Why = "fail", "no ai_jobs row "+it.Job
		case it.JobState != "created":
			it.Verdict = "publish" // already dispatched: close it without a second add
		case !e.allowed(it.Queue):
			it.Verdict, it.Why = "fail", "queue "+it.Queue+" not in OUTBOX_QUEUES"
		case !legal(it.Job):
			it.Verdict, it.Why = "fail", "jobId "+it.Job+" is illegal for BullMQ (all digits or ':')"
		}
	}
}

func (e *engine) allowed(q string) bool {
	for _, a := range e.o.queues {
		if a == q {
			return true
		}
	}
	return false
}

func legal(id string) bool {
	if id == "" || strings.ContainsRune(id, ':') {
		return false
	}
	for _, r := range id {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false
}

// backoff for the n-th failure: base doubled n-1 times, at most the maximum,
// with up to a quarter taken off at random so retries spread out.
func (e *engine) backoff(n int) time.Duration {
	d := e.o.backoffBase
	for i := 1; i < n && d < e.o.backoffMax; i++ {
		d *= 2
	}
	d = min(d, e.o.backoffMax)
	var b [1]byte
	_, _ = rand.Read(b[:])
	return d - d/4*time.Duration(b[0])/255
}
