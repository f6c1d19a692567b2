package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

// floorBatch is one batch of the raw floor.
type floorBatch struct {
	ids  []any
	jobs []bullmq.Job
}

// runFloor moves a preload of cfg.Events with the least work one batch
// can take, in-process: one SELECT of a batch of pending ids with their
// jobs' queues, one pipelined add (reference/bullmq), one batched UPDATE of
// the events to published and one of the jobs to queued, each autocommit.
// No claim, no lease, no fence, no validation: nothing a dispatcher may
// skip. It is the rate no correct dispatcher can beat on this machine.
func (r *runner) runFloor(ctx context.Context) (Row, error) {
	row := Row{Name: KindFloor, Kind: KindFloor, About: fmt.Sprintf("in-process, batch %d: select, pipelined add, 2 updates", r.cfg.BatchSize)}
	c, err := r.preloadedCase(ctx, "floor", "sat")
	if err != nil {
		return row, err
	}
	defer r.dropCase(c)
	row.Preloaded = r.cfg.Events
	producer, err := bullmq.NewProducer(r.srv.rdb, bullmq.Options{})
	if err != nil {
		return row, fmt.Errorf("floor producer: %w", err)
	}
	self := os.Getpid()
	cpu0, err := readCPU(self)
	if err != nil {
		return row, err
	}
	w, err := r.openWindow(ctx, c)
	if err != nil {
		return row, err
	}
	moved, err := r.floorLoop(ctx, c, producer)
	if err != nil {
		return row, err
	}
	cpu1, err := readCPU(self)
	if err != nil {
		return row, err
	}
	ww, err := w.close(ctx, r, c)
	if err != nil {
		return row, err
	}
	end, err := c.lastPublished(ctx, 0)
	if err != nil {
		return row, fmt.Errorf("floor: %w", err)
	}
	row.fill(moved, end.Sub(w.t0), ww, cpu1-cpu0)
	r.log("floor: %d events in %s: %.0f events/s", moved, row.Elapsed.Round(time.Millisecond), row.EPS)
	return row, nil
}

// floorLoop runs batches until none is pending and returns how many events
// it moved.
func (r *runner) floorLoop(ctx context.Context, c *caseDB, p *bullmq.Producer) (int, error) {
	moved := 0
	for {
		b, err := r.floorSelect(ctx, c)
		if err != nil {
			return moved, err
		}
		if len(b.ids) == 0 {
			return moved, nil
		}
		if err := floorMove(ctx, c, p, b); err != nil {
			return moved, err
		}
		moved += len(b.ids)
	}
}

func (r *runner) floorSelect(ctx context.Context, c *caseDB) (floorBatch, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT o.id, o.aggregate_id, j.queue_name FROM outbox_events o
		JOIN ai_jobs j ON j.id = o.aggregate_id WHERE o.status = 'pending' ORDER BY o.id LIMIT ?`, r.cfg.BatchSize)
	if err != nil {
		return floorBatch{}, fmt.Errorf("floor select: %w", err)
	}
	defer rows.Close()
	var b floorBatch
	for rows.Next() {
		var id int64
		var job, queue string
		if err := rows.Scan(&id, &job, &queue); err != nil {
			return b, fmt.Errorf("floor select: %w", err)
		}
		b.ids = append(b.ids, id)
		b.jobs = append(b.jobs, bullmq.Job{Queue: queue, ID: job, Name: "ai.job.enqueue", Data: `{"jobId":"` + job + `"}`})
	}
	if err := rows.Err(); err != nil {
		return b, fmt.Errorf("floor select: %w", err)
	}
	return b, nil
}

func floorMove(ctx context.Context, c *caseDB, p *bullmq.Producer, b floorBatch) error {
	results, err := p.Add(ctx, b.jobs)
	if err != nil {
		return fmt.Errorf("floor add: %w", err)
	}
	jobIDs := make([]any, len(b.jobs))
	for i, res := range results {
		if res.Err != nil {
			return fmt.Errorf("floor add job %s: %w", res.Job.ID, res.Err)
		}
		jobIDs[i] = res.Job.ID
	}
	in := strings.TrimSuffix(strings.Repeat("?,", len(b.ids)), ",")
	if _, err := c.db.ExecContext(ctx, "UPDATE outbox_events SET status = 'published', published_at = NOW(6) WHERE id IN ("+in+")", b.ids...); err != nil {
		return fmt.Errorf("floor update events: %w", err)
	}
	if _, err := c.db.ExecContext(ctx, "UPDATE ai_jobs SET status = 'queued' WHERE id IN ("+in+")", jobIDs...); err != nil {
		return fmt.Errorf("floor update jobs: %w", err)
	}
	return nil
}
