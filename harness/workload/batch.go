package workload

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// batchRows is how many events one ProduceBatch transaction holds.
const batchRows = 500

// ProduceBatch commits n events in transactions of up to 500 events, each a
// multi-row INSERT into the jobs table and one into the outbox table. It
// ignores Rate. The kinds follow the same seeded sequence as Produce.
func (p *Producer) ProduceBatch(ctx context.Context, n int) error {
	if n < 0 {
		return fmt.Errorf("produce batch: n is %d; use 0 or more", n)
	}
	for done := 0; done < n; {
		size := min(batchRows, n-done)
		evs := make([]planned, size)
		for i := range evs {
			evs[i] = p.plan()
		}
		ids, err := p.commitBatch(ctx, evs)
		if err != nil {
			return fmt.Errorf("produce batch (events %d..%d of %d): %w", done+1, done+size, n, err)
		}
		at := time.Now().UTC()
		for i, ev := range evs {
			e := p.event(ev, ids[i])
			e.Produced = at
			p.cfg.Recorder.AddEvent(e)
		}
		done += size
	}
	return nil
}

// commitBatch writes evs in one transaction and returns their outbox ids in
// order.
func (p *Producer) commitBatch(ctx context.Context, evs []planned) ([]int64, error) {
	tx, err := p.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	if err := p.insertJobs(ctx, tx, evs); err != nil {
		return nil, err
	}
	var args []any
	var cols []string
	for _, ev := range evs {
		row := p.row(ev)
		cols, args = row.cols, append(args, row.vals...)
	}
	res, err := tx.ExecContext(ctx, p.outboxInsert(cols, len(evs)), args...)
	if err != nil {
		return nil, fmt.Errorf("insert outbox rows: %w", err)
	}
	if p.cfg.Schema.Outbox.IDType != schema.KeyAuto {
		ids := make([]int64, len(evs))
		for i, ev := range evs {
			ids[i] = ev.num
		}
		return ids, tx.Commit()
	}
	if p.returning() {
		ids, err := p.lookupIDs(ctx, tx, evs, 0)
		if err != nil {
			return nil, err
		}
		return ids, tx.Commit()
	}
	first, err := res.LastInsertId()
	if err != nil || first == 0 {
		return nil, fmt.Errorf("outbox ids: the database assigned none (is %s.%s AUTO_INCREMENT?): %v",
			p.cfg.Schema.Outbox.Table, p.cfg.Schema.Outbox.ID, err)
	}
	ids, err := p.batchIDs(ctx, tx, evs, first)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return ids, nil
}

func (p *Producer) insertJobs(ctx context.Context, tx *sql.Tx, evs []planned) error {
	var args []any
	rows := 0
	for _, ev := range evs {
		if ev.hasJob {
			args = append(args, ev.jobID, ev.queue, ev.jobStatus)
			rows++
		}
	}
	if rows == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, p.jobsInsert(rows), args...); err != nil {
		return fmt.Errorf("insert %d jobs rows: %w", rows, err)
	}
	return nil
}

// batchIDs reads back the ids of the rows just inserted. A multi-row INSERT
// reports its first id only, and with innodb_autoinc_lock_mode=2 (MySQL 8's
// default) concurrent inserts may interleave, so the ids are matched by
// aggregate_id (unique per event within a run) from the first id on, in one
// query; an outbox without aggregate_id is read back row by row, by what
// finds each event's row again (lookup).
func (p *Producer) batchIDs(ctx context.Context, tx *sql.Tx, evs []planned, first int64) ([]int64, error) {
	o := p.cfg.Schema.Outbox
	if o.AggregateID == "" {
		return p.lookupIDs(ctx, tx, evs, first)
	}
	args := []any{first}
	for _, ev := range evs {
		args = append(args, ev.jobID)
	}
	s := p.sql
	q := fmt.Sprintf("SELECT %s, %s FROM %s WHERE %s >= %s AND %s IN (%s)", s.q(o.ID), s.q(o.AggregateID),
		s.q(o.Table), s.q(o.ID), s.ph(1, 1), s.q(o.AggregateID), s.ph(2, len(evs)))
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read back outbox ids: %w", err)
	}
	defer rows.Close()
	byJob := make(map[string]int64, len(evs))
	for rows.Next() {
		var id int64
		var job string
		if err := rows.Scan(&id, &job); err != nil {
			return nil, fmt.Errorf("read back outbox ids: %w", err)
		}
		byJob[job] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read back outbox ids: %w", err)
	}
	ids := make([]int64, len(evs))
	for i, ev := range evs {
		id, ok := byJob[ev.jobID]
		if !ok {
			return nil, fmt.Errorf("read back outbox ids: no row for job %s at id >= %d", ev.jobID, first)
		}
		ids[i] = id
	}
	return ids, nil
}

// lookupIDs reads back each event's id by lookup, from the first id on.
func (p *Producer) lookupIDs(ctx context.Context, tx *sql.Tx, evs []planned, first int64) ([]int64, error) {
	o := p.cfg.Schema.Outbox
	ids := make([]int64, len(evs))
	for i, ev := range evs {
		cond, arg := p.lookup(ev, 2)
		q := fmt.Sprintf("SELECT %s FROM %s WHERE %s >= %s AND %s", p.sql.q(o.ID), p.sql.q(o.Table), p.sql.q(o.ID), p.sql.ph(1, 1), cond)
		if err := tx.QueryRowContext(ctx, q, first, arg).Scan(&ids[i]); err != nil {
			return nil, fmt.Errorf("read back outbox id of job %s at id >= %d: %w", ev.jobID, first, err)
		}
	}
	return ids, nil
}
