package workload

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/sink"
)

// SinkConsumerConfig configures a SinkConsumer.
type SinkConsumerConfig struct {
	// Redis is a direct connection (never through the fault proxy).
	Redis *redis.Client
	// DB and Schema name the jobs table whose rows the consumer moves on;
	// DB may be nil when the schema has no jobs table or with LeaveRows.
	DB     *sql.DB
	Schema schema.Mapping
	// Dialect is the store's SQL (model.MySQL when zero).
	Dialect model.Dialect
	Sink    sink.Config
	// Workers is how many messages are processed at once (default 1).
	Workers int
	// LeaveRows keeps the consumer off the jobs table (ConsumerConfig).
	LeaveRows bool
	Recorder  *history.Recorder
	// Name names the consumer in recorded takes (default "consumer").
	Name string
}

// Validate checks the configuration and fills in defaults.
func (c *SinkConsumerConfig) Validate() error {
	if c.Redis == nil {
		return fmt.Errorf("sink consumer: Redis is nil; pass a direct *redis.Client")
	}
	if err := c.Sink.Validate(); err != nil {
		return fmt.Errorf("sink consumer: %w", err)
	}
	if c.movesRows() {
		if err := c.Schema.Validate(); err != nil {
			return fmt.Errorf("sink consumer: %w", err)
		}
		if c.DB == nil {
			return fmt.Errorf("sink consumer: DB is nil; pass an open *sql.DB for the jobs table %s (or set LeaveRows)", c.Schema.Jobs.Table)
		}
	}
	if c.Workers < 0 {
		return fmt.Errorf("sink consumer: Workers is %d; use 1 or more (0 means 1)", c.Workers)
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.Recorder == nil {
		return fmt.Errorf("sink consumer: Recorder is nil; pass the run's history.Recorder")
	}
	if c.Name == "" {
		c.Name = "consumer"
	}
	return nil
}

func (c *SinkConsumerConfig) movesRows() bool { return !c.LeaveRows && c.Schema.HasJobs() }

// SinkConsumer takes the messages of a stream or list sink the way a
// team's consumer would (package doc).
type SinkConsumer struct {
	cfg  SinkConsumerConfig
	rows *rowMover
	from messageSource
	tally
	abandoned atomic.Int64 // taken, then given up unacknowledged
}

// delivery is one message a worker took.
type delivery struct {
	key, id string // the stream entry's id; "" for a list element
	msg     sink.Message
}

// messageSource is how a sink's messages reach the workers.
type messageSource interface {
	// prepare runs once before the workers start.
	prepare(ctx context.Context) error
	// take waits briefly for one message; ok is false when none came. turn
	// counts the worker's takes.
	take(ctx context.Context, worker string, turn int) (d delivery, ok bool, err error)
	// done acknowledges a processed message.
	done(ctx context.Context, d delivery) error
	// idle tells whether every message the sink holds was taken and done.
	idle(ctx context.Context) (bool, error)
}

// NewSinkConsumer validates cfg and returns a consumer.
func NewSinkConsumer(cfg SinkConsumerConfig) (*SinkConsumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &SinkConsumer{cfg: cfg, rows: &rowMover{db: cfg.DB}}
	if cfg.movesRows() {
		c.rows = newRowMover(cfg.DB, dialectOr(cfg.Dialect), cfg.Schema)
	}
	if cfg.Sink.Kind == history.SinkStream {
		c.from = &streamSource{rdb: cfg.Redis, cfg: cfg.Sink}
	} else {
		c.from = &archiveSource{rdb: cfg.Redis, cfg: cfg.Sink, next: map[string]int64{}}
	}
	return c, nil
}

// Stats returns the counts so far (Completed: messages acknowledged).
func (c *SinkConsumer) Stats() ConsumerStats { return c.stats() }

// Idle tells whether the consumer has taken and finished every message
// the sink holds now: for a stream, its group has been delivered the last
// entry and has nothing pending; for a list, it has taken the whole
// archive (the list itself is the mover's).
func (c *SinkConsumer) Idle(ctx context.Context) (bool, error) {
	ok, err := c.from.idle(ctx)
	if err != nil {
		return false, fmt.Errorf("sink consumer: %w", err)
	}
	return ok && c.taken.Load() == c.completed.Load()+c.abandoned.Load(), nil
}

// Run processes messages with cfg.Workers workers until ctx is done, then
// returns once every worker has finished the message it held. It fails
// only when the sink cannot be prepared.
func (c *SinkConsumer) Run(ctx context.Context) error {
	if err := c.from.prepare(ctx); err != nil {
		return fmt.Errorf("sink consumer: %w", err)
	}
	var wg sync.WaitGroup
	for w := 0; w < c.cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.work(ctx, fmt.Sprintf("%s/%d", c.cfg.Name, w), w)
		}()
	}
	wg.Wait()
	return nil
}

func (c *SinkConsumer) work(ctx context.Context, worker string, first int) {
	for turn := first; ctx.Err() == nil; turn++ {
		d, ok, err := c.from.take(ctx, worker, turn)
		if err != nil {
			if ctx.Err() == nil {
				c.noteErr(err)
				_ = sleep.For(ctx, retryBackoff)
			}
			continue
		}
		if !ok {
			continue
		}
		c.taken.Add(1)
		jobCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobDeadline)
		c.process(jobCtx, worker, d)
		cancel()
	}
}

// process records the take, moves the jobs row on and acknowledges.
func (c *SinkConsumer) process(ctx context.Context, worker string, d delivery) {
	id := d.msg.ID
	if id == "" {
		id = d.msg.DataJobID
	}
	c.cfg.Recorder.AddTake(history.Take{Queue: d.key, JobID: id, DataJobID: d.msg.DataJobID, Worker: worker, At: time.Now().UTC()})
	row := d.msg.DataJobID
	if row == "" {
		row = id
	}
	if row != "" {
		_ = c.retry(ctx, func() error { return c.rows.move(ctx, row) })
	}
	if c.retry(ctx, func() error { return c.from.done(ctx, d) }) == nil {
		c.completed.Add(1)
	} else {
		c.abandoned.Add(1)
	}
}
