package workload

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

const (
	takeTimeout  = "0.1" // seconds a worker blocks on one queue's wait list
	retryBackoff = 100 * time.Millisecond
	retryCap     = time.Second      // the longest wait between two tries of a step
	jobDeadline  = 30 * time.Second // to finish a taken job, even after Run ends
)

// ConsumerConfig configures a Consumer.
type ConsumerConfig struct {
	// Redis is a direct connection (never through the fault proxy).
	Redis  *redis.Client
	DB     *sql.DB
	Schema schema.Mapping
	// Dialect is the store's SQL (model.MySQL when zero).
	Dialect model.Dialect
	// Prefix is the BullMQ key prefix ("bull").
	Prefix string
	Queues []string
	// Workers is how many jobs are processed at once (default 1).
	Workers int
	// RemoveOnComplete deletes the job hash on completion, as BullMQ's
	// removeOnComplete: true does, instead of adding the id to completed.
	RemoveOnComplete bool
	// LeaveRows keeps the consumer off the jobs table, like a worker that
	// records its progress elsewhere: a dispatcher that re-dispatches after a
	// crash then finds the job still created and must rely on the jobId (or,
	// once the job was removed, its own dedupe record) not to add it twice.
	LeaveRows bool
	Recorder  *history.Recorder
	// Name names the consumer in recorded takes (default "consumer").
	Name string
}

// Validate checks the configuration and fills in defaults.
func (c *ConsumerConfig) Validate() error {
	if c.Redis == nil {
		return fmt.Errorf("consumer: Redis is nil; pass a direct *redis.Client")
	}
	if c.DB == nil {
		return fmt.Errorf("consumer: DB is nil; pass an open *sql.DB for the jobs table")
	}
	if err := c.Schema.Validate(); err != nil {
		return fmt.Errorf("consumer: %w", err)
	}
	if c.Prefix == "" {
		return fmt.Errorf("consumer: Prefix is empty; use the BullMQ key prefix (\"bull\")")
	}
	if err := validateQueues(c.Queues); err != nil {
		return fmt.Errorf("consumer: %w", err)
	}
	if c.Workers < 0 {
		return fmt.Errorf("consumer: Workers is %d; use 1 or more (0 means 1)", c.Workers)
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.Recorder == nil {
		return fmt.Errorf("consumer: Recorder is nil; pass the run's history.Recorder")
	}
	if c.Name == "" {
		c.Name = "consumer"
	}
	return nil
}

// ConsumerStats counts what a consumer did.
type ConsumerStats struct {
	Taken     int64 // jobs moved from wait to active
	Completed int64 // jobs finished with their hash present
	Errors    int64 // Redis or MySQL errors (each retried or given up)
	LastError string
}

// Consumer takes jobs from BullMQ queues like a simplified worker.
type Consumer struct {
	cfg  ConsumerConfig
	rows *rowMover
	tally
}

// tally counts what a consumer did, and retries its steps.
type tally struct {
	taken, completed, errs atomic.Int64
	lastErr                atomic.Value // string
}

// NewConsumer validates cfg and returns a consumer.
func NewConsumer(cfg ConsumerConfig) (*Consumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rows := &rowMover{db: cfg.DB}
	if !cfg.LeaveRows && cfg.Schema.HasJobs() {
		rows = newRowMover(cfg.DB, dialectOr(cfg.Dialect), cfg.Schema)
	}
	return &Consumer{cfg: cfg, rows: rows}, nil
}

// Stats returns the counts so far.
func (c *Consumer) Stats() ConsumerStats { return c.stats() }

func (t *tally) stats() ConsumerStats {
	last, _ := t.lastErr.Load().(string)
	return ConsumerStats{Taken: t.taken.Load(), Completed: t.completed.Load(), Errors: t.errs.Load(), LastError: last}
}

// Run processes jobs with cfg.Workers workers until ctx is done, then returns
// nil once every worker has finished the job it held.
func (c *Consumer) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for w := 0; w < c.cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.work(ctx, w)
		}()
	}
	wg.Wait()
	return nil
}

// work is one worker's loop: take from the queues in turn, process, repeat.
func (c *Consumer) work(ctx context.Context, w int) {
	name := fmt.Sprintf("%s/%d", c.cfg.Name, w)
	next := w % len(c.cfg.Queues)
	for ctx.Err() == nil {
		q := c.cfg.Queues[next]
		next = (next + 1) % len(c.cfg.Queues)
		id, err := c.take(ctx, q)
		if err != nil {
			if ctx.Err() == nil {
				c.noteErr(err)
				_ = sleep.For(ctx, retryBackoff)
			}
			continue
		}
		if id == "" {
			continue
		}
		c.taken.Add(1)
		jobCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobDeadline)
		c.process(jobCtx, name, q, id)
		cancel()
	}
}

func (c *Consumer) key(q, suffix string) string { return c.cfg.Prefix + ":" + q + ":" + suffix }

// take moves one id from the right end of the wait list to active, blocking
// briefly. It returns "" when the list stayed empty.
func (c *Consumer) take(ctx context.Context, q string) (string, error) {
	id, err := c.cfg.Redis.Do(ctx, "blmove", c.key(q, "wait"), c.key(q, "active"), "RIGHT", "LEFT", takeTimeout).Text()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("take from %s: %w", c.key(q, "wait"), err)
	}
	return id, nil
}

// process activates, records, runs (moves the jobs row) and completes one
// taken job. Each step is retried on errors; a step that keeps failing is
// given up and counted, and the next step still runs.
func (c *Consumer) process(ctx context.Context, worker, q, id string) {
	data, _ := c.activate(ctx, q, id)
	take := history.Take{Queue: q, JobID: id, DataJobID: history.DataJobID(data), Worker: worker, At: time.Now().UTC()}
	c.cfg.Recorder.AddTake(take)
	row := take.DataJobID
	if row == "" {
		row = id
	}
	c.retry(ctx, func() error { return c.rows.move(ctx, row) })
	c.retry(ctx, func() error { return c.complete(ctx, q, id) })
}

// activate marks the job processing and returns its data ("" when its hash is
// gone).
func (c *Consumer) activate(ctx context.Context, q, id string) (string, error) {
	var data string
	err := c.retry(ctx, func() error {
		keys := []string{c.key(q, id), c.key(q, "events"), c.key(q, "meta")}
		v, err := activateScript.Run(ctx, c.cfg.Redis, keys, id, nowMillis()).Text()
		if errors.Is(err, redis.Nil) {
			data = ""
			return nil
		}
		if err != nil {
			return fmt.Errorf("activate job %s in %s: %w", id, q, err)
		}
		data = v
		return nil
	})
	return data, err
}

func (c *Consumer) complete(ctx context.Context, q, id string) error {
	keys := []string{c.key(q, id), c.key(q, "events"), c.key(q, "meta"), c.key(q, "active"), c.key(q, "completed")}
	remove := "0"
	if c.cfg.RemoveOnComplete {
		remove = "1"
	}
	n, err := completeScript.Run(ctx, c.cfg.Redis, keys, id, nowMillis(), remove).Int()
	if err != nil {
		return fmt.Errorf("complete job %s in %s: %w", id, q, err)
	}
	if n == 1 {
		c.completed.Add(1)
	}
	return nil
}

// retry runs f until it succeeds or ctx ends (a taken job's at
// jobDeadline), waiting retryBackoff between tries, doubled each time up to
// retryCap. A consumer must ride out what the scenarios do to the servers,
// an outage or Redis over its memory limit (its -OOM refuses the take's and
// the completion's scripts), or its own gaps would be blamed on the
// dispatcher.
func (t *tally) retry(ctx context.Context, f func() error) error {
	wait := retryBackoff
	for {
		err := f()
		if err == nil {
			return nil
		}
		t.noteErr(err)
		if sleep.For(ctx, wait) != nil {
			return err
		}
		wait = min(2*wait, retryCap)
	}
}

func (t *tally) noteErr(err error) {
	t.errs.Add(1)
	t.lastErr.Store(err.Error())
}

func nowMillis() string { return strconv.FormatInt(time.Now().UnixMilli(), 10) }
