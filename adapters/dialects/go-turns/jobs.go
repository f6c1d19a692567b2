package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// dispatchedType is the only event_type this relay dispatches.
const dispatchedType = "ai.job.enqueue"

// readJobs reads the claimed events' ai_jobs rows inside the claim's
// transaction: all of them with a plain read, then each one that read did
// not find again, alone, with a locking read. The claim's SKIP LOCKED read
// of the outbox has been seen to take an event whose producer transaction
// was still committing while a plain read right after it missed the
// event's ai_jobs row (MariaDB 10.11, commit-order-gaps seed 3); a locking
// read of that row waits for the commit or sees the committed row. The
// second read is by primary key alone: a locking read of the whole IN list
// was seen to wait for producer transactions held open, whose rows it never
// needed. It returns how many jobs only the second read found.
func readJobs(ctx context.Context, tx *sql.Tx, evs []*event) (int, error) {
	byJob := map[string][]*event{}
	args := make([]any, 0, len(evs))
	for _, ev := range evs {
		if byJob[ev.jobID] == nil {
			args = append(args, ev.jobID)
		}
		byJob[ev.jobID] = append(byJob[ev.jobID], ev)
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")
	rows, err := tx.QueryContext(ctx, `SELECT id, queue_name, status FROM ai_jobs WHERE id IN (`+marks+`)`, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, queue, status string
		if err := rows.Scan(&id, &queue, &status); err != nil {
			return 0, err
		}
		found(byJob[id], queue, status)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return lookAgain(ctx, tx, byJob)
}

// lookAgain reads each job not found yet with a locking read by its key,
// and returns how many it found.
func lookAgain(ctx context.Context, tx *sql.Tx, byJob map[string][]*event) (int, error) {
	n := 0
	for id, evs := range byJob {
		if evs[0].found {
			continue
		}
		var queue, status string
		err := tx.QueryRowContext(ctx, `SELECT queue_name, status FROM ai_jobs WHERE id = ? LOCK IN SHARE MODE`, id).Scan(&queue, &status)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return n, err
		default:
			found(evs, queue, status)
			n++
		}
	}
	return n, nil
}

func found(evs []*event, queue, status string) {
	for _, ev := range evs {
		ev.found, ev.queue, ev.jobStatus = true, queue, status
	}
}

// validate decides every event that needs no add, by the contract's checks
// in its order (section 2, step 2): permanent failures, and jobs already
// dispatched. A job past created was dispatched before, by a claim that
// died before it settled: the event is closed with no second add.
func (d *dispatcher) validate(ev *event) {
	switch {
	case ev.kind != dispatchedType:
		ev.outcome, ev.reason = reject, fmt.Sprintf("permanent: event_type %q is not %s", ev.kind, dispatchedType)
	case !ev.found:
		ev.outcome, ev.reason = reject, fmt.Sprintf("permanent: no ai_jobs row %q", ev.jobID)
	case ev.jobStatus != "created":
		ev.outcome = publish
	case !d.cfg.allowed(ev.queue):
		ev.outcome, ev.reason = reject, fmt.Sprintf("permanent: queue %q is not in OUTBOX_QUEUES", ev.queue)
	case !legalJobID(ev.jobID):
		ev.outcome, ev.reason = reject, fmt.Sprintf("permanent: %q is not a legal BullMQ jobId (all digits, or a ':')", ev.jobID)
	}
}

// legalJobID: not empty, not all digits, no ':'.
func legalJobID(id string) bool {
	if id == "" || strings.Contains(id, ":") {
		return false
	}
	return strings.Trim(id, "0123456789") != ""
}
