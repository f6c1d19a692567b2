package reference

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// execer is what a guarded write needs: a transaction or the pool.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// finalReport counts what one finalize wrote.
type finalReport struct {
	published map[string]int // by how
	failed    map[string]int // by reason
	retried   int
	givenBack int
	fenced    []int64 // events no longer ours: nothing written
}

// finalize writes every decided fate of b in ONE transaction (doc.go,
// "Finalize"): it first locks the rows that are still ours (processing, our
// token) with SELECT ... FOR UPDATE, then writes only those, each statement
// guarded again by status and token. Rows that are no longer ours are
// fenced out: counted, logged, never forced.
// withFailpoints is false for the second finalize after a failed one, so a
// failpoint counts each batch once.
func (d *Dispatcher) finalize(ctx context.Context, b *Batch, fates []fate, withFailpoints bool) (finalReport, error) {
	rep := finalReport{published: map[string]int{}, failed: map[string]int{}}
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		rep = finalReport{published: map[string]int{}, failed: map[string]int{}} // a restarted transaction counts afresh
		ours, err := lockOurs(ctx, tx, b)
		if err != nil {
			return err
		}
		plan := finalPlan{errWidth: d.errWidth.Of(ctx, tx)}
		for i, e := range b.Events {
			if !ours[e.ID] {
				rep.fenced = append(rep.fenced, e.ID)
				continue
			}
			plan.add(e, fates[i], d.cfg.MaxAttempts, &rep)
		}
		if err := d.writePlan(ctx, tx, b, plan); err != nil {
			return err
		}
		if withFailpoints {
			d.fp.Hit(failpoint.BeforeFinalizeCommit)
		}
		return nil
	})
	if err != nil {
		return finalReport{}, fmt.Errorf("finalize batch: %w", err)
	}
	if withFailpoints {
		d.fp.Hit(failpoint.AfterFinalizeCommit)
	}
	return rep, nil
}

// lockOurs locks the events of b that are still held under b's token.
func lockOurs(ctx context.Context, tx *sql.Tx, b *Batch) (map[int64]bool, error) {
	ids := b.IDs()
	rows, err := tx.QueryContext(ctx,
		`SELECT id FROM `+dispatchkit.OutboxByID+`
		 WHERE id IN `+dispatchkit.InList(len(ids))+` AND status = 'processing' AND lock_token = ?
		 FOR UPDATE`, append(dispatchkit.Args(ids), b.Token)...)
	if err != nil {
		return nil, fmt.Errorf("lock held events: %w", err)
	}
	defer rows.Close()
	ours := make(map[int64]bool, len(ids))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("lock held events: scan: %w", err)
		}
		ours[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lock held events: %w", err)
	}
	return ours, nil
}

// finalPlan groups the still-ours events by the write they need.
type finalPlan struct {
	errWidth int      // last_error's width in characters
	publish  []int64  // events to close as published
	queue    []string // their jobs that were added (or found) in BullMQ: created -> queued
	fail     []int64  // permanent failures and transient ones at the maximum
	failErr  []string
	retry    []Event // transient failures below the maximum
	retErr   []string
	back     []int64 // given back: a dependency answered nothing
}

func (p *finalPlan) add(e Event, f fate, maxAttempts int, rep *finalReport) {
	switch {
	case f.kind == fatePublish:
		p.publish = append(p.publish, e.ID)
		if f.how != HowAlreadyDispatched {
			p.queue = append(p.queue, e.JobID)
		}
		rep.published[f.how]++
	case f.kind == fateFail:
		p.fail = append(p.fail, e.ID)
		p.failErr = append(p.failErr, f.lastError(e, maxAttempts, p.errWidth))
		rep.failed[f.reason]++
	case f.kind == fateRetry && e.Attempts >= maxAttempts:
		p.fail = append(p.fail, e.ID)
		p.failErr = append(p.failErr, f.lastError(e, maxAttempts, p.errWidth))
		rep.failed[ReasonMaxAttempts]++
	case f.kind == fateRetry:
		p.retry = append(p.retry, e)
		p.retErr = append(p.retErr, f.lastError(e, maxAttempts, p.errWidth))
		rep.retried++
	case f.kind == fateGiveBack:
		p.back = append(p.back, e.ID)
		rep.givenBack++
	}
}

func (d *Dispatcher) writePlan(ctx context.Context, tx *sql.Tx, b *Batch, p finalPlan) error {
	if err := d.writePublished(ctx, tx, b.Token, p.publish); err != nil {
		return err
	}
	if err := queueJobs(ctx, tx, p.queue); err != nil {
		return err
	}
	if err := d.writeFailed(ctx, tx, b.Token, p.fail, p.failErr); err != nil {
		return err
	}
	n, err := d.writeRetries(ctx, tx, b.Token, p.retry, p.retErr)
	if err == nil && n != int64(len(p.retry)) {
		err = fmt.Errorf("mark retry: wrote %d of %d locked rows", n, len(p.retry))
	}
	if err != nil {
		return err
	}
	n, err = giveBackRows(ctx, tx, b.Token, p.back)
	if err == nil && n != int64(len(p.back)) {
		err = fmt.Errorf("give back: wrote %d of %d locked rows", n, len(p.back))
	}
	return err
}

// writePublished closes events as published. locked_by and lock_token stay:
// the row shows who finalized it.
func (d *Dispatcher) writePublished(ctx context.Context, tx *sql.Tx, token string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	args := append([]any{d.nowArg()}, dispatchkit.Args(ids)...)
	res, err := tx.ExecContext(ctx,
		`UPDATE `+dispatchkit.OutboxByID+` SET status = 'published', published_at = `+sqlNow+`, locked_until = NULL
		 WHERE id IN `+dispatchkit.InList(len(ids))+` AND status = 'processing' AND lock_token = ?`,
		append(args, token)...)
	return expectRows(res, err, len(ids), "mark published")
}

// queueJobs moves the jobs created -> queued. A job already past created
// (a worker took it) is left alone: the guard matches nothing.
func queueJobs(ctx context.Context, tx *sql.Tx, jobIDs []string) error {
	if len(jobIDs) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx,
		`UPDATE ai_jobs SET status = '`+jobQueued+`'
		 WHERE id IN `+dispatchkit.InList(len(jobIDs))+` AND status = '`+jobCreated+`'`, dispatchkit.Args(jobIDs)...)
	if err != nil {
		return fmt.Errorf("mark jobs queued: %w", err)
	}
	return nil
}

// writeFailed closes events as failed with their reasons.
func (d *Dispatcher) writeFailed(ctx context.Context, tx *sql.Tx, token string, ids []int64, texts []string) error {
	if len(ids) == 0 {
		return nil
	}
	cs, csArgs := caseByID(ids, func(i int) string { return texts[i] })
	args := append(csArgs, dispatchkit.Args(ids)...)
	res, err := tx.ExecContext(ctx,
		`UPDATE `+dispatchkit.OutboxByID+` SET status = 'failed', last_error = `+cs+`, locked_until = NULL
		 WHERE id IN `+dispatchkit.InList(len(ids))+` AND status = 'processing' AND lock_token = ?`,
		append(args, token)...)
	return expectRows(res, err, len(ids), "mark failed")
}

// writeRetries returns transient failures to pending with their error and
// available_at = now + jittered backoff. It is guarded, so it also serves
// outside a finalize (after a failed one): it returns how many rows were
// still ours.
func (d *Dispatcher) writeRetries(ctx context.Context, ex execer, token string, events []Event, texts []string) (int64, error) {
	if len(events) == 0 {
		return 0, nil
	}
	ids := make([]int64, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	errCase, errArgs := caseByID(ids, func(i int) string { return texts[i] })
	delayCase, delayArgs := caseByID(ids, func(i int) int64 {
		return d.jitter.delay(events[i].Attempts, d.cfg.BackoffBase, d.cfg.BackoffMax).Microseconds()
	})
	args := append(errArgs, d.nowArg())
	args = append(append(args, delayArgs...), dispatchkit.Args(ids)...)
	res, err := ex.ExecContext(ctx,
		`UPDATE `+dispatchkit.OutboxByID+`
		 SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL,
		     last_error = `+errCase+`, available_at = `+sqlNow+` + INTERVAL (`+delayCase+`) MICROSECOND
		 WHERE id IN `+dispatchkit.InList(len(ids))+` AND status = 'processing' AND lock_token = ?`,
		append(args, token)...)
	return rowsWritten("mark retry", res, err)
}

// expectRows checks that a write inside the finalize matched every row it
// was given: they are locked and ours, so anything else is a bug.
func expectRows(res sql.Result, err error, want int, what string) error {
	n, err := rowsWritten(what, res, err)
	if err != nil {
		return err
	}
	if n != int64(want) {
		return fmt.Errorf("%s: wrote %d of %d locked rows", what, n, want)
	}
	return nil
}
