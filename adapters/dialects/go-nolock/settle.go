package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
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
		err = w.withText(f.errText, func(text any) error {
			_, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'failed', last_error = ?
			WHERE id = ?`+fence, text, ev.id, w.cfg.Instance)
			return err
		})
	case "pending":
		err = w.withText(f.errText, func(text any) error {
			_, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'pending', last_error = ?,
			available_at = NOW(6) + INTERVAL ? MICROSECOND, locked_by = NULL, locked_until = NULL
			WHERE id = ?`+fence, text, w.delay(ev.attempts).Microseconds(), ev.id, w.cfg.Instance)
			return err
		})
	case "release":
		err = w.withText(f.errText, func(text any) error {
			_, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'pending', last_error = ?, locked_by = NULL, locked_until = NULL
			WHERE id = ?`+fence, text, ev.id, w.cfg.Instance)
			return err
		})
	default:
		err = fmt.Errorf("unknown fate %q", f.status)
	}
	return err
}

// shortText replaces a text that last_error refused.
const shortText = "reason did not fit last_error"

// withText runs a write of text into last_error. When the server refuses
// the text itself (strict mode: 1406 data too long, 1366 incorrect string
// value), the same write is tried again with shortText, and if that is
// refused too with NULL: the row's status must not depend on how long its
// reason is. MariaDB rolls back only the refused statement, so the
// transaction goes on.
func (w *worker) withText(text string, exec func(any) error) error {
	err := exec(text)
	if !refusedText(err) {
		return err
	}
	w.log.Warn("last_error refused the reason, writing a short one", "err", err, "reason", text)
	if err = exec(shortText); !refusedText(err) {
		return err
	}
	return exec(nil)
}

// refusedText tells a server's refusal of a text value from other errors.
func refusedText(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1406 || me.Number == 1366)
}
