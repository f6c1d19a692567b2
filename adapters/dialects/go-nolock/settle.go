package main

import (
	"context"
	"database/sql"
	"fmt"
)

// settle writes the round's fates in one transaction. Every write is fenced
// by status, locked_by and an unexpired locked_until: a claim that ran out
// is no longer this instance's to write, whoever recovers it.
func (w *worker) settle(events []event, fates []fate) error {
	if len(events) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.Lease/2)
	defer cancel()
	tx, err := w.db.BeginTx(ctx, rc)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	for i, ev := range events {
		if err := w.write(ctx, tx, ev, fates[i]); err != nil {
			return fmt.Errorf("event %d: %w", ev.id, err)
		}
	}
	return tx.Commit()
}

const fence = ` AND status = 'processing' AND locked_by = ? AND locked_until > NOW(6)`

func (w *worker) write(ctx context.Context, tx *sql.Tx, ev event, f fate) error {
	var err error
	switch f.status {
	case "published":
		var res sql.Result
		res, err = tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'published', published_at = NOW(6)
			WHERE id = ?`+fence, ev.id, w.cfg.Instance)
		if err == nil {
			if n, _ := res.RowsAffected(); n == 1 {
				_, err = tx.ExecContext(ctx, `UPDATE ai_jobs SET status = 'queued' WHERE id = ? AND status = 'created'`, ev.jobID)
			}
		}
	case "failed":
		_, err = tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'failed', last_error = ?
			WHERE id = ?`+fence, f.errText, ev.id, w.cfg.Instance)
	case "pending":
		_, err = tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'pending', last_error = ?,
			available_at = NOW(6) + INTERVAL ? MICROSECOND, locked_by = NULL, locked_until = NULL
			WHERE id = ?`+fence, f.errText, w.delay(ev.attempts).Microseconds(), ev.id, w.cfg.Instance)
	case "release":
		_, err = tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'pending', last_error = ?, locked_by = NULL, locked_until = NULL
			WHERE id = ?`+fence, f.errText, ev.id, w.cfg.Instance)
	default:
		err = fmt.Errorf("unknown fate %q", f.status)
	}
	return err
}
