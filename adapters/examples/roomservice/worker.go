package roomservice

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

// EventType is the only event type the worker delivers.
const EventType = "ai.job.enqueue"

// Worker is the room outbox compensation worker.
type Worker struct {
	cfg      Config
	store    *store
	producer *bullmq.Producer
	queues   map[string]bool
	log      *slog.Logger
}

// NewWorker builds a worker over open MySQL and Redis clients.
func NewWorker(cfg Config, db *sql.DB, rdb redis.UniversalClient, log *slog.Logger) (*Worker, error) {
	p, err := bullmq.NewProducer(rdb, bullmq.Options{Prefix: cfg.BullPrefix})
	if err != nil {
		return nil, fmt.Errorf("room outbox worker: %w", err)
	}
	w := &Worker{cfg: cfg, store: &store{db: db, cfg: cfg}, producer: p, queues: map[string]bool{},
		log: log.With("worker", "room_outbox", "node_id", cfg.NodeID)}
	for _, q := range cfg.Queues {
		w.queues[q] = true
	}
	return w, nil
}

// Run processes one batch at once, then one per tick, until ctx ends. An
// event already being delivered when ctx ends is finished; the rest of its
// batch is released.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.cfg.PollInterval)
	defer t.Stop()
	for {
		if err := w.ProcessPendingOutbox(ctx); err != nil && ctx.Err() == nil {
			w.log.Error("outbox round failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ProcessPendingOutbox claims one batch and delivers its records one by one,
// each within PublishTimeout. One record's failure does not stop the batch.
func (w *Worker) ProcessPendingOutbox(ctx context.Context) error {
	if ctx.Err() != nil {
		return nil
	}
	cctx, cancel := w.store.opContext(ctx)
	recs, err := w.store.ClaimPendingOutbox(cctx)
	cancel()
	if err != nil {
		return err
	}
	for i, r := range recs {
		if ctx.Err() != nil {
			return w.release(recs[i:])
		}
		w.deliver(r)
	}
	return nil
}

// release gives back what a stopping worker did not start.
func (w *Worker) release(recs []Record) error {
	ctx, cancel := w.store.opContext(context.Background())
	defer cancel()
	return w.store.Release(ctx, recs)
}

// deliver handles one record to its end: delivered, retryable or failed.
// It runs on its own contexts so that a stop lets it finish.
func (w *Worker) deliver(r Record) {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.PublishTimeout)
	err := w.publish(ctx, r)
	cancel()
	mctx, mcancel := w.store.opContext(context.Background())
	defer mcancel()
	var perm *permanentError
	switch {
	case err == nil:
		ours, merr := w.store.MarkOutboxDelivered(mctx, r)
		if merr != nil {
			w.log.Error("mark delivered failed; the lease will expire and the event be delivered again", "event_id", r.EventID, "error", merr)
		} else if !ours {
			w.log.Warn("event no longer ours at mark delivered", "event_id", r.EventID)
		}
	case errors.As(err, &perm):
		w.markFailed(mctx, r, true, perm.Error())
	default:
		w.markFailed(mctx, r, false, fmt.Sprintf("retry %d: %v", r.RetryCount+1, err))
	}
}

func (w *Worker) markFailed(ctx context.Context, r Record, permanent bool, msg string) {
	status, err := w.store.MarkOutboxFailed(ctx, r, permanent, msg)
	if err != nil {
		w.log.Error("mark failed failed; the lease will expire", "event_id", r.EventID, "error", err)
		return
	}
	w.log.Warn("delivery failed", "event_id", r.EventID, "event_type", r.EventType,
		"retry_count", r.RetryCount+boolInt(!permanent), "status", status, "error", msg)
}

// permanentError is a failure no retry can fix.
type permanentError struct{ reason, detail string }

func (e *permanentError) Error() string { return e.reason + ": " + e.detail }

func permanent(reason, format string, args ...any) error {
	return &permanentError{reason: reason, detail: fmt.Sprintf(format, args...)}
}

// publish validates the record and adds its job; nil means BullMQ has the
// job (added now, or before) or needs none (the task was dispatched before).
func (w *Worker) publish(ctx context.Context, r Record) error {
	if r.EventType != EventType {
		return permanent("unknown_event_type", "event type %q is not %q", r.EventType, EventType)
	}
	task, ok, err := w.store.LoadTask(ctx, r.TaskID)
	switch {
	case err != nil:
		return err
	case !ok:
		return permanent("job_not_found", "room_tasks has no row %q", r.TaskID)
	case task.State != TaskNew:
		return nil
	case !w.queues[task.Queue]:
		return permanent("queue_not_allowed", "queue %q is not in %s", task.Queue, EnvQueues)
	}
	if err := bullmq.ValidateJobID(r.TaskID); err != nil {
		return permanent("illegal_job_id", "%v", err)
	}
	data, err := json.Marshal(map[string]string{"jobId": r.TaskID})
	if err != nil {
		return permanent("illegal_job_id", "encode data: %v", err)
	}
	res, err := w.producer.Add(ctx, []bullmq.Job{{Queue: task.Queue, ID: r.TaskID, Name: r.EventType, Data: string(data)}})
	if err != nil {
		return fmt.Errorf("add job: %w", err)
	}
	return res[0].Err
}
