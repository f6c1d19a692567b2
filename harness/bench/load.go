package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// producer returns a workload producer of valid events only, with its own
// recorder (the benchmark keeps no history) and a run id unique in the case.
func (c *caseDB) producer(runID string, rate float64) (*workload.Producer, error) {
	p, err := workload.NewProducer(workload.ProducerConfig{
		DB: c.db, Schema: schema.Reference(), Queues: queues, Rate: rate,
		Mix:  workload.Mix{Valid: 1},
		Rand: rand.New(rand.NewPCG(1, 2)), Recorder: history.NewRecorder(history.Meta{}),
		RunID: runID,
	})
	if err != nil {
		return nil, fmt.Errorf("bench producer: %w", err)
	}
	return p, nil
}

// preload commits n valid events in large transactions (ProduceBatch),
// before any dispatcher runs. Chunks of at most preloadChunk events each get
// a fresh producer, so no recorder grows with n.
func (c *caseDB) preload(ctx context.Context, runID string, n int) error {
	for done, chunk := 0, 0; done < n; chunk++ {
		size := min(preloadChunk, n-done)
		p, err := c.producer(fmt.Sprintf("%s-%d", runID, chunk), 0)
		if err != nil {
			return err
		}
		if err := p.ProduceBatch(ctx, size); err != nil {
			return fmt.Errorf("preload %d events: %w", n, err)
		}
		done += size
	}
	return nil
}

const preloadChunk = 50_000

// countStatus counts outbox rows in the given status; the statement is
// charged to the harness.
func (c *caseDB) countStatus(ctx context.Context, status string) (int, error) {
	c.own.add()
	var n int
	if err := c.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox_events WHERE status = ?", status).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s events: %w", status, err)
	}
	return n, nil
}

// dbNow reads NOW(6), the clock created_at and published_at are written on.
func (c *caseDB) dbNow(ctx context.Context) (time.Time, error) {
	c.own.add()
	var t time.Time
	if err := c.db.QueryRowContext(ctx, "SELECT NOW(6)").Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("read database clock: %w", err)
	}
	return t, nil
}

// lastPublished is the latest published_at among events with id > after.
func (c *caseDB) lastPublished(ctx context.Context, after int64) (time.Time, error) {
	var t sql.NullTime
	err := c.db.QueryRowContext(ctx, "SELECT MAX(published_at) FROM outbox_events WHERE id > ? AND status = 'published'", after).Scan(&t)
	if err != nil {
		return time.Time{}, fmt.Errorf("latest published_at: %w", err)
	}
	if !t.Valid {
		return time.Time{}, errors.New("latest published_at: no event was published")
	}
	return t.Time, nil
}

// maxID is the highest outbox id so far (0 for none).
func (c *caseDB) maxID(ctx context.Context) (int64, error) {
	var id int64
	if err := c.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM outbox_events").Scan(&id); err != nil {
		return 0, fmt.Errorf("highest outbox id: %w", err)
	}
	return id, nil
}

// failedCount says how many events ended failed: every benchmark event is
// valid, so any failure is a dispatcher or harness problem to report.
func (c *caseDB) failedCount(ctx context.Context) (int, error) {
	var n int
	if err := c.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox_events WHERE status = 'failed'").Scan(&n); err != nil {
		return 0, fmt.Errorf("count failed events: %w", err)
	}
	return n, nil
}
