package dispatcher

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// finalize writes every fate of b in ONE transaction (doc.go, "Finalize").
// Fenced (the base), it first locks the rows still processing under b's
// token and writes only those, each statement guarded again; unfenced, it
// writes every row of b by id. The transaction may take up to two leases: a
// paused finalize keeps its row locks, and the guarded recovery waits for
// them and then skips the rows it finalized.
func (d *Dispatcher) finalize(ctx context.Context, b *batch, fates []fate) error {
	ctx, cancel := d.bounded(ctx, 2*d.cfg.Lease)
	defer cancel()
	err := dispatchkit.InTx(ctx, d.db, func(tx *sql.Tx) error {
		ours, err := d.lockOurs(ctx, tx, b)
		if err != nil {
			return err
		}
		if err := d.writeFates(ctx, tx, b, fates, ours); err != nil {
			return err
		}
		d.fp.Hit(failpoint.BeforeFinalizeCommit)
		return nil
	})
	if err != nil {
		return fmt.Errorf("finalize batch: %w", err)
	}
	d.fp.Hit(failpoint.AfterFinalizeCommit)
	return nil
}

// fenced tells whether finalize writes are guarded by status and token: not
// in unfenced-finalize, not when the Redis lock is the only exclusion, and
// not in no-timeouts-unfenced, which trusts that what it claimed stays its
// own however long it waited.
func (d *Dispatcher) fenced() bool {
	return d.flow.fenced && d.flow.exclusion == exclusionRowLeases && !d.flow.untimed
}

// wakeRetries is how many more times no-timeouts-unfenced writes a batch
// whose finalize failed, wakeRetryPause apart.
const (
	wakeRetries    = 5
	wakeRetryPause = 200 * time.Millisecond
)

// finalizeOnWake is no-timeouts-unfenced after a finalize that failed (the
// link it waited on closed): it writes the batch again, by id, until MySQL
// answers, instead of leaving the rows to lease recovery.
func (d *Dispatcher) finalizeOnWake(ctx context.Context, b *batch, fates []fate, err error) error {
	for try := 0; try < wakeRetries && err != nil && ctx.Err() == nil; try++ {
		d.log.Warn("finalize failed; writing the batch again", "batch", len(b.events), "error", err.Error())
		time.Sleep(wakeRetryPause)
		err = d.finalize(ctx, b, fates)
	}
	return err
}

// guard is the WHERE clause suffix of a fenced write of b's rows.
func (d *Dispatcher) guard(b *batch) (string, []any) {
	if !d.fenced() {
		return "", nil
	}
	col, arg := d.fence(b)
	return ` AND status = 'processing' AND ` + col + ` = ?`, []any{arg}
}

// fence is the column that tells b's rows are still ours, and b's value of
// it: the lock token, or in lease-end-fence the lease end b's claim wrote,
// as this instance computed it.
func (d *Dispatcher) fence(b *batch) (string, any) {
	if d.flow.leaseEndFence {
		return "locked_until", b.until
	}
	return "lock_token", b.token
}

// lockOurs returns the events of b this finalize may write: those still
// processing under b's token, locked; every event when unfenced.
func (d *Dispatcher) lockOurs(ctx context.Context, tx *sql.Tx, b *batch) (map[int64]bool, error) {
	ours := map[int64]bool{}
	if !d.fenced() {
		for _, id := range b.ids() {
			ours[id] = true
		}
		return ours, nil
	}
	// By primary key (dispatchkit.OutboxByID): on a small table the
	// optimizer picks a full scan, and a locking read that scans waits for
	// every row another finalize holds.
	col, arg := d.fence(b)
	rows, err := tx.QueryContext(ctx, `SELECT id FROM `+dispatchkit.OutboxByID+`
		WHERE id IN `+dispatchkit.InList(len(b.events))+` AND status = 'processing' AND `+col+` = ? FOR UPDATE`,
		append(dispatchkit.Args(b.ids()), arg)...)
	if err != nil {
		return nil, fmt.Errorf("lock held events: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("lock held events: scan: %w", err)
		}
		ours[id] = true
	}
	return ours, rows.Err()
}

// writeFates writes each of our events' fate: published (and its job
// queued), failed, or back to pending with backoff.
func (d *Dispatcher) writeFates(ctx context.Context, tx *sql.Tx, b *batch, fates []fate, ours map[int64]bool) error {
	var published []int64
	var jobs []string
	for i, e := range b.events {
		f := fates[i]
		if !ours[e.id] {
			d.log.Warn("fenced out: the event is no longer held by this instance", "event_id", e.id)
			continue
		}
		var err error
		switch f.kind {
		case fatePublish:
			published = append(published, e.id)
			if f.how != howAlreadyDispatched {
				jobs = append(jobs, e.jobID)
			}
		case fateFail:
			err = d.writeFailed(ctx, tx, b, e, f.text)
		case fateRetry:
			err = d.writeTransient(ctx, tx, b, e, f.text)
		default:
			err = fmt.Errorf("event %d has no decided fate", e.id)
		}
		if err != nil {
			return err
		}
	}
	if err := d.writePublished(ctx, tx, b, published); err != nil {
		return err
	}
	if !d.flow.queueJobs {
		return nil // published-not-queued: the jobs stay created
	}
	return queueJobs(ctx, tx, jobs)
}

// writePublished closes events as published; locked_by and lock_token stay,
// so the row shows who finalized it.
func (d *Dispatcher) writePublished(ctx context.Context, tx *sql.Tx, b *batch, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	g, gArgs := d.guard(b)
	_, err := tx.ExecContext(ctx, `UPDATE `+dispatchkit.OutboxByID+` SET status = 'published', published_at = NOW(6), locked_until = NULL
		WHERE id IN `+dispatchkit.InList(len(ids))+g, append(dispatchkit.Args(ids), gArgs...)...)
	if err != nil {
		return fmt.Errorf("mark published: %w", err)
	}
	return nil
}

// queueJobs moves the published events' jobs created -> queued; a job a
// worker already moved on is left alone.
func queueJobs(ctx context.Context, tx *sql.Tx, jobIDs []string) error {
	if len(jobIDs) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE ai_jobs SET status = 'queued'
		WHERE id IN `+dispatchkit.InList(len(jobIDs))+` AND status = 'created'`, dispatchkit.Args(jobIDs)...)
	if err != nil {
		return fmt.Errorf("mark jobs queued: %w", err)
	}
	return nil
}

func (d *Dispatcher) writeFailed(ctx context.Context, tx *sql.Tx, b *batch, e event, text string) error {
	g, gArgs := d.guard(b)
	_, err := tx.ExecContext(ctx, `UPDATE `+dispatchkit.OutboxByID+` SET status = 'failed', last_error = ?, locked_until = NULL
		WHERE id = ?`+g, append([]any{d.lastError(ctx, tx, text), e.id}, gArgs...)...)
	if err != nil && d.flow.unfitted {
		// unfitted-failure: the refused write is taken for a passing
		// error (InnoDB rolled back only the statement), and the event
		// goes back to pending, with no bound: at the maximum its
		// failure is written, and refused, again.
		return d.writeRetry(ctx, tx, b, e, fmt.Sprintf("attempt %d of %d: %s", e.attempts, d.cfg.MaxAttempts, refusedText(err)))
	}
	if err != nil {
		return fmt.Errorf("mark failed: %w", err)
	}
	return nil
}

// writeTransient handles a transient failure: failed at the maximum
// attempts, else back to pending with "attempt n of m: <error>" (the number
// makes consecutive errors differ) and available_at pushed out by backoff.
func (d *Dispatcher) writeTransient(ctx context.Context, tx *sql.Tx, b *batch, e event, text string) error {
	maxAttempts := d.cfg.MaxAttempts
	attempt := fmt.Sprintf("attempt %d of %d: %s", e.attempts, maxAttempts, text)
	if e.attempts >= maxAttempts && d.flow.failAtMax {
		return d.writeFailed(ctx, tx, b, e, reference.ReasonMaxAttempts+": "+attempt)
	}
	return d.writeRetry(ctx, tx, b, e, attempt)
}

// writeRetry puts e back to pending with text and available_at pushed out
// by backoff.
func (d *Dispatcher) writeRetry(ctx context.Context, tx *sql.Tx, b *batch, e event, text string) error {
	g, gArgs := d.guard(b)
	wait := d.backoff(e.attempts)
	due, dueArg := `NOW(6) + INTERVAL ? MICROSECOND`, any(wait.Microseconds())
	if d.flow.localTimes {
		due, dueArg = `?`, localWall(time.Now().Add(wait)) // local-zone-times
	}
	args := append([]any{d.lastError(ctx, tx, text), dueArg, e.id}, gArgs...)
	_, err := tx.ExecContext(ctx, `UPDATE `+dispatchkit.OutboxByID+` SET status = 'pending', locked_by = NULL, lock_token = NULL,
		locked_until = NULL, last_error = ?, available_at = `+due+`
		WHERE id = ?`+g, args...)
	if err != nil {
		return fmt.Errorf("mark retry: %w", err)
	}
	return nil
}

// backoff is the delay after a transient failure of the attempts-th claim:
// uniform in [c/2, c] with c = reference.BackoffCeiling; zero in no-backoff.
func (d *Dispatcher) backoff(attempts int) time.Duration {
	if !d.flow.backoff {
		return 0
	}
	c := reference.BackoffCeiling(attempts, d.cfg.BackoffBase, d.cfg.BackoffMax)
	d.jitterMu.Lock()
	defer d.jitterMu.Unlock()
	return c/2 + time.Duration(d.jitter.Int63n(int64(c-c/2)+1))
}

// localWall is local-zone-times' way to write a time: the process's local
// wall time as DATETIME text, which the server takes as its session's
// zone. A process whose TZ is not the server's writes hours off (the
// zone's difference), as a driver that formats dates in the process's zone
// does (sidorares/node-mysql2 #658).
func localWall(t time.Time) string {
	return t.Local().Format("2006-01-02 15:04:05.000000")
}
