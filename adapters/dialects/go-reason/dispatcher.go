package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

type dispatcher struct {
	s   settings
	db  *sql.DB
	rdb *redis.Client
	log *log.Logger

	reasonCap atomic.Int64 // last_error's width as learned from refusals (reason.go), 0 before any
}

// row is one claimed event and what became of it.
type row struct {
	id        int64
	eventType string
	jobID     string
	attempts  int // after the claim counted this one

	queue, jobStatus string
	found            bool

	outcome outcome
	reason  string
}

type outcome int

const (
	toAdd     outcome = iota
	publish           // added, or dispatched before: published
	permanent         // failed at once
	transient         // back to pending with backoff, or failed at max
)

// round claims one batch and carries it to the end; it returns the batch size.
func (d *dispatcher) round() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d.s.lease)
	defer cancel()
	token, rows, err := d.claim(ctx)
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	if err := d.loadJobs(ctx, rows); err != nil {
		// Nothing was added: hand every row back as a transient failure.
		for _, r := range rows {
			r.outcome, r.reason = transient, "load ai_jobs: "+err.Error()
		}
	} else {
		for _, r := range rows {
			d.judge(r)
		}
		d.add(ctx, rows)
	}
	return len(rows), d.finish(ctx, token, rows)
}

// readCommitted keeps the dispatcher's locking reads and updates from taking
// gap locks that would stall (or deadlock with) the application's inserts.
var readCommitted = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

func freshToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// claim takes up to batch due events with FOR UPDATE SKIP LOCKED and leases
// them to this instance under one fresh token, in one short transaction.
func (d *dispatcher) claim(ctx context.Context) (string, []*row, error) {
	tx, err := d.db.BeginTx(ctx, readCommitted)
	if err != nil {
		return "", nil, fmt.Errorf("claim: begin: %w", err)
	}
	defer tx.Rollback()
	q, err := tx.QueryContext(ctx, `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		WHERE status = 'pending' AND available_at <= NOW(6) ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED`, d.s.batch)
	if err != nil {
		return "", nil, fmt.Errorf("claim: select: %w", err)
	}
	var rows []*row
	var ids []any
	for q.Next() {
		r := &row{}
		if err := q.Scan(&r.id, &r.eventType, &r.jobID, &r.attempts); err != nil {
			q.Close()
			return "", nil, fmt.Errorf("claim: scan: %w", err)
		}
		r.attempts++
		rows = append(rows, r)
		ids = append(ids, r.id)
	}
	q.Close()
	if err := q.Err(); err != nil {
		return "", nil, fmt.Errorf("claim: rows: %w", err)
	}
	if len(rows) == 0 {
		return "", nil, nil
	}
	token := freshToken()
	args := append([]any{d.s.instance, token, d.s.lease.Microseconds()}, ids...)
	if _, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'processing', attempts = attempts + 1,
		locked_by = ?, lock_token = ?, locked_until = NOW(6) + INTERVAL ? MICROSECOND
		WHERE id IN (`+marks(len(ids))+`)`, args...); err != nil {
		return "", nil, fmt.Errorf("claim: lease: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return "", nil, fmt.Errorf("claim: commit: %w", err)
	}
	return token, rows, nil
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// loadJobs reads the ai_jobs row of every claimed event.
func (d *dispatcher) loadJobs(ctx context.Context, rows []*row) error {
	byJob := map[string][]*row{}
	var ids []any
	for _, r := range rows {
		if byJob[r.jobID] == nil {
			ids = append(ids, r.jobID)
		}
		byJob[r.jobID] = append(byJob[r.jobID], r)
	}
	q, err := d.db.QueryContext(ctx, `SELECT id, queue_name, status FROM ai_jobs WHERE id IN (`+marks(len(ids))+`)`, ids...)
	if err != nil {
		return fmt.Errorf("select: %w", err)
	}
	defer q.Close()
	for q.Next() {
		var id, queue, status string
		if err := q.Scan(&id, &queue, &status); err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		for _, r := range byJob[id] {
			r.found, r.queue, r.jobStatus = true, queue, status
		}
	}
	return q.Err()
}

// judge applies the contract's validation (step 2) to one claimed event.
func (d *dispatcher) judge(r *row) {
	switch {
	case r.eventType != "ai.job.enqueue":
		r.outcome, r.reason = permanent, "unknown event_type "+r.eventType
	case !r.found:
		r.outcome, r.reason = permanent, "ai_jobs row "+r.jobID+" not found"
	case r.jobStatus != "created":
		// Dispatched before (an earlier owner died before its finalize, or a
		// worker already moved it): close it, no second add.
		r.outcome = publish
	case !d.s.queues[r.queue]:
		r.outcome, r.reason = permanent, "queue "+r.queue+" is not in the allowlist"
	case !legalJobID(r.jobID):
		r.outcome, r.reason = permanent, "illegal BullMQ jobId "+r.jobID+": all digits or contains ':'"
	default:
		r.outcome = toAdd
	}
	if r.outcome == permanent && d.s.plant == "poison-as-transient" {
		r.outcome = transient
	}
}

func legalJobID(id string) bool {
	if id == "" || strings.Contains(id, ":") {
		return false
	}
	return strings.Trim(id, "0123456789") != ""
}
