package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
)

// claimed is the one event held, with its job.
type claimed struct {
	id       int64
	etype    string
	job      string
	attempts int // counted at the claim
	token    string

	jobFound       bool
	queue, jstatus string
}

var rcOpts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

func token() string {
	b := make([]byte, 15)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// claimOne takes the oldest due event (FOR UPDATE SKIP LOCKED) and its job
// row in one transaction; nil when nothing is due.
func (s *single) claimOne(ctx context.Context) (*claimed, error) {
	tx, err := s.db.BeginTx(ctx, rcOpts)
	if err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	defer tx.Rollback()
	e := &claimed{token: token()}
	q := `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
		WHERE status = 'pending' AND available_at <= NOW(6) ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`
	if s.c.Plant == plantGlobalLock {
		// Trusts the Redis lock alone: no row lock, no lease check, and a
		// processing row is taken as a dead holder's leftover.
		q = `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
			WHERE status IN ('pending', 'processing') AND available_at <= NOW(6) ORDER BY id LIMIT 1`
	}
	err = tx.QueryRowContext(ctx, q).Scan(&e.id, &e.etype, &e.job, &e.attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim: select: %w", err)
	}
	e.attempts++
	if _, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'processing', attempts = attempts + 1,
		locked_by = ?, lock_token = ?, locked_until = NOW(6) + INTERVAL ? MICROSECOND WHERE id = ?`,
		s.c.Me, e.token, s.c.Lease.Microseconds(), e.id); err != nil {
		return nil, fmt.Errorf("claim: update: %w", err)
	}
	err = tx.QueryRowContext(ctx, `SELECT queue_name, status FROM ai_jobs WHERE id = ?`, e.job).Scan(&e.queue, &e.jstatus)
	switch {
	case err == nil:
		e.jobFound = true
	case !errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("claim: job row: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("claim: commit: %w", err)
	}
	return e, nil
}
