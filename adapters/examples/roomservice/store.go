package roomservice

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Record is one claimed room_outbox row.
type Record struct {
	EventID    int64
	EventType  string
	TaskID     string
	RetryCount int
}

// Task is the room_tasks row an event is about.
type Task struct {
	Queue, State string
}

// Room task states this worker reads and writes.
const (
	TaskNew        = "new"
	TaskDispatched = "dispatched"
)

// store is the repository of the guide: ClaimPendingOutbox,
// MarkOutboxDelivered, MarkOutboxFailed, plus the task lookup and release.
type store struct {
	db  *sql.DB
	cfg Config
}

func (s *store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// ClaimPendingOutbox takes up to BatchSize due pending or retryable rows,
// and delivering rows whose lock_until has passed (a dead worker's), as
// delivering under this node's worker_id with lock_until = NOW + LockTTL.
func (s *store) ClaimPendingOutbox(ctx context.Context) ([]Record, error) {
	var recs []Record
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT event_id, event_type, task_id, retry_count FROM room_outbox
			WHERE (status IN ('pending', 'retryable') AND retry_at <= NOW(6))
			   OR (status = 'delivering' AND lock_until < NOW(6))
			ORDER BY event_id LIMIT ? FOR UPDATE SKIP LOCKED`, s.cfg.BatchSize)
		if err != nil {
			return fmt.Errorf("select due: %w", err)
		}
		recs, err = scanRecords(rows)
		if err != nil || len(recs) == 0 {
			return err
		}
		args := []any{s.cfg.NodeID, s.cfg.LockTTL.Microseconds()}
		for _, r := range recs {
			args = append(args, r.EventID)
		}
		_, err = tx.ExecContext(ctx, `UPDATE room_outbox SET status = 'delivering', worker_id = ?,
			lock_until = NOW(6) + INTERVAL ? MICROSECOND WHERE event_id IN (`+marks(len(recs))+`)`, args...)
		if err != nil {
			return fmt.Errorf("mark delivering: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim pending outbox: %w", err)
	}
	return recs, nil
}

func scanRecords(rows *sql.Rows) ([]Record, error) {
	defer rows.Close()
	var recs []Record
	for rows.Next() {
		var r Record
		if err := rows.Scan(&r.EventID, &r.EventType, &r.TaskID, &r.RetryCount); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		recs = append(recs, r)
	}
	return recs, rows.Err()
}

// LoadTask reads the task of an event; ok is false when there is none.
func (s *store) LoadTask(ctx context.Context, id string) (Task, bool, error) {
	var t Task
	err := s.db.QueryRowContext(ctx, `SELECT queue, state FROM room_tasks WHERE task_id = ?`, id).Scan(&t.Queue, &t.State)
	if err == sql.ErrNoRows {
		return Task{}, false, nil
	}
	if err != nil {
		return Task{}, false, fmt.Errorf("load task %s: %w", id, err)
	}
	return t, true, nil
}

// MarkOutboxDelivered closes a row we still hold as delivered and moves its
// task from new to dispatched, in one transaction. It reports whether the
// row was still ours.
func (s *store) MarkOutboxDelivered(ctx context.Context, r Record) (bool, error) {
	ours := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE room_outbox SET status = 'delivered', delivered_at = NOW(6),
			last_error = NULL, lock_until = NULL
			WHERE event_id = ? AND status = 'delivering' AND worker_id = ?`, r.EventID, s.cfg.NodeID)
		if err != nil {
			return fmt.Errorf("mark delivered: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		ours = true
		if _, err := tx.ExecContext(ctx, `UPDATE room_tasks SET state = ? WHERE task_id = ? AND state = ?`,
			TaskDispatched, r.TaskID, TaskNew); err != nil {
			return fmt.Errorf("mark task dispatched: %w", err)
		}
		return nil
	})
	return ours, err
}

// MarkOutboxFailed records a failed delivery: retryable again after the
// fixed retry interval with retry_count + 1, or failed for good when the
// failure is permanent or the retries are spent.
func (s *store) MarkOutboxFailed(ctx context.Context, r Record, permanent bool, msg string) (string, error) {
	status := "retryable"
	if permanent || (s.cfg.MaxRetries > 0 && r.RetryCount+1 >= s.cfg.MaxRetries) {
		status = "failed"
	}
	if len(msg) > 1024 {
		msg = msg[:1024]
	}
	_, err := s.db.ExecContext(ctx, `UPDATE room_outbox SET status = ?, retry_count = retry_count + ?,
		last_error = ?, worker_id = IF(? = 'failed', worker_id, NULL), lock_until = NULL,
		retry_at = IF(? = 'failed', retry_at, NOW(6) + INTERVAL ? MICROSECOND)
		WHERE event_id = ? AND status = 'delivering' AND worker_id = ?`,
		status, boolInt(!permanent), msg, status, status, s.cfg.RetryInterval.Microseconds(), r.EventID, s.cfg.NodeID)
	if err != nil {
		return status, fmt.Errorf("mark %s: %w", status, err)
	}
	return status, nil
}

// Release hands rows back untouched (graceful stop): retryable, no error
// change, no retry counted.
func (s *store) Release(ctx context.Context, recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	args := []any{s.cfg.NodeID}
	for _, r := range recs {
		args = append(args, r.EventID)
	}
	_, err := s.db.ExecContext(ctx, `UPDATE room_outbox SET status = 'retryable', worker_id = NULL, lock_until = NULL
		WHERE status = 'delivering' AND worker_id = ? AND event_id IN (`+marks(len(recs))+`)`, args...)
	if err != nil {
		return fmt.Errorf("release %d rows: %w", len(recs), err)
	}
	return nil
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// opContext bounds one database operation by the lease.
func (s *store) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, max(s.cfg.LockTTL, time.Second))
}
