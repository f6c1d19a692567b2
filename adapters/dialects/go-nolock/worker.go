package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// worker is one dispatcher instance. It never writes lock_token: a claim is
// this instance's name in locked_by with a lease in locked_until, and every
// later write is fenced by both (and by status).
type worker struct {
	cfg Config
	db  *sql.DB
	rdb *redis.Client
	log *slog.Logger
}

// rc is the isolation of every transaction: READ COMMITTED takes no gap
// locks, so claims and recoveries never block the application's inserts.
var rc = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

type event struct {
	id       int64
	kind     string
	jobID    string
	attempts int // counted at the claim
}

// fate is what the round decided for one event.
type fate struct {
	status  string // published, failed, pending (retry) or "release"
	errText string
}

// recover runs at the start of every round, on whichever instance polls:
// claims whose lease ran out go back to pending as they were, with no new
// error and no backoff. It reports whether it recovered anything.
func (w *worker) recover() bool {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.Lease/2)
	defer cancel()
	tx, err := w.db.BeginTx(ctx, rc)
	if err != nil {
		w.log.Warn("recover expired claims", "err", err)
		return false
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'pending', locked_by = NULL, locked_until = NULL
		WHERE status = 'processing' AND locked_until < NOW(6)`)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		w.log.Warn("recover expired claims", "err", err)
		return false
	}
	n, _ := res.RowsAffected()
	return n > 0
}

// round claims a batch and works through it event by event. On SIGTERM
// (stopping done) the events it has not started are released with a reason.
func (w *worker) round(stopping context.Context) int {
	claimedAt := time.Now()
	events, err := w.claim()
	if err != nil {
		w.log.Warn("claim", "err", err)
		return 0
	}
	fates := make([]fate, len(events))
	safeUntil := claimedAt.Add(w.cfg.Lease - w.cfg.PublishTimeout - w.cfg.Lease/10)
	for i, ev := range events {
		switch {
		case stopping.Err() != nil:
			fates[i] = fate{status: "release", errText: "released: shutting down"}
		case time.Now().After(safeUntil):
			fates[i] = fate{status: "release", errText: "released: lease nearly over"}
		default:
			fates[i] = w.dispatch(ev)
		}
	}
	if err := w.settle(events, fates); err != nil {
		w.log.Warn("settle", "err", err)
	}
	return len(events)
}

func (w *worker) claim() ([]event, error) {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.Lease/2)
	defer cancel()
	tx, err := w.db.BeginTx(ctx, rc)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		WHERE status = 'pending' AND available_at <= NOW(6) ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED`, w.cfg.BatchSize)
	if err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	var out []event
	var ids []string
	for rows.Next() {
		var e event
		if err := rows.Scan(&e.id, &e.kind, &e.jobID, &e.attempts); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan: %w", err)
		}
		e.attempts++
		out = append(out, e)
		ids = append(ids, fmt.Sprint(e.id))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	// The ids are integers this process just scanned: safe to inline.
	if _, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'processing', attempts = attempts + 1,
		locked_by = ?, locked_until = NOW(6) + INTERVAL ? MICROSECOND WHERE id IN (`+strings.Join(ids, ",")+`)`,
		w.cfg.Instance, w.cfg.Lease.Microseconds()); err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return out, nil
}
