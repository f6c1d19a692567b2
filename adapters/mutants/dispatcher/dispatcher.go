package dispatcher

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math/rand"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/bullmq"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// Dispatcher is the base dispatcher with at most one bug (or a comparison
// mode). Create it with New and drive it with Run, or step by step with Poll.
type Dispatcher struct {
	cfg      Config
	flow     flow
	db       *sql.DB
	rdb      redis.UniversalClient
	producer *bullmq.Producer
	fp       *failpoint.Set
	log      *slog.Logger
	queues   map[string]bool
	lock     *dispatchLock // nil unless the flow takes the Redis dispatch lock
	owned    dispatchkit.Owned

	jitterMu sync.Mutex
	jitter   *rand.Rand

	lastRecover time.Time              // loop-local: when recovery last ran
	cursor      int64                  // loop-local: the highest id claimed (read only by cursor-claim)
	registry    bool                   // loop-local: outbox_owners was created (memory-owner-registry, -recovery)
	errWidth    dispatchkit.ErrorWidth // last_error's width in characters, once read
	failLater   []refusedBatch         // loop-local: batches read-only-as-permanent will fail
}

// Option supplies a dependency instead of the one built from Config.
type Option func(*Dispatcher)

// WithDB uses db (open it with reference.OpenMySQL: READ COMMITTED matters).
// The caller closes it.
func WithDB(db *sql.DB) Option { return func(d *Dispatcher) { d.db = db } }

// WithRedis uses rdb; the caller closes it.
func WithRedis(rdb redis.UniversalClient) Option { return func(d *Dispatcher) { d.rdb = rdb } }

// WithLogger replaces the text-to-stderr logger.
func WithLogger(l *slog.Logger) Option { return func(d *Dispatcher) { d.log = l } }

// WithFailpoints replaces the failpoints parsed from OUTBOX_FAILPOINTS.
func WithFailpoints(s *failpoint.Set) Option { return func(d *Dispatcher) { d.fp = s } }

// New validates cfg and builds a dispatcher. It does not contact MySQL or
// Redis.
func New(cfg Config, opts ...Option) (*Dispatcher, error) {
	cfg.Config = cfg.Config.WithDerived()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f, err := flowFor(cfg.Bug, cfg.Mode)
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{cfg: cfg, flow: f, queues: map[string]bool{}, jitter: rand.New(rand.NewSource(time.Now().UnixNano()))}
	for _, q := range cfg.Queues {
		d.queues[q] = true
	}
	if d.fp, err = failpoint.Parse(cfg.Failpoints, cfg.FailpointSeed); err != nil {
		return nil, fmt.Errorf("new dispatcher: %w", err)
	}
	for _, o := range opts {
		o(d)
	}
	if err := d.connect(); err != nil {
		_ = d.Close()
		return nil, err
	}
	return d, nil
}

// connect fills in what the options did not supply.
func (d *Dispatcher) connect() error {
	if d.log == nil {
		d.log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: d.cfg.LogLevel}))
	}
	d.log = d.log.With("instance", d.cfg.InstanceID, "flow", d.cfg.Name())
	mysql := func() (*sql.DB, error) { return reference.OpenMySQL(d.cfg.MySQLDSN) }
	if err := dispatchkit.Open(&d.owned, &d.db, mysql, (*sql.DB).Close); err != nil {
		return err
	}
	rdb := func() (redis.UniversalClient, error) {
		if d.flow.untimed {
			return openUntimedRedis(d.cfg.RedisURL) // no-timeouts-unfenced
		}
		return reference.OpenRedis(d.cfg.RedisURL, d.cfg.PublishTimeout)
	}
	if err := dispatchkit.Open(&d.owned, &d.rdb, rdb, redis.UniversalClient.Close); err != nil {
		return err
	}
	p, err := bullmq.NewProducer(d.producerClient(), bullmq.Options{Prefix: d.cfg.BullPrefix, DedupeHorizon: d.cfg.DedupeHorizon,
		WaitReplicas: d.cfg.RedisReplicas, WaitTimeout: max(d.cfg.PublishTimeout/4, time.Millisecond)})
	if err != nil {
		return fmt.Errorf("new dispatcher: %w", err)
	}
	d.producer = p
	if d.flow.tickLock || d.flow.exclusion == exclusionRedisLockOnly {
		d.lock = newDispatchLock(d.rdb, d.cfg.BullPrefix, d.cfg.Lease)
	}
	return nil
}

// Close closes the connections New opened itself. It is idempotent.
func (d *Dispatcher) Close() error { return d.owned.Close() }

// String describes the dispatcher for logs and test failures.
func (d *Dispatcher) String() string {
	return fmt.Sprintf("dispatcher %s (%s)", d.cfg.InstanceID, d.cfg.Name())
}

// batchSize and pollInterval are the mode's fixed values or the contract's.
func (d *Dispatcher) batchSize() int {
	if d.flow.batchSize > 0 {
		return d.flow.batchSize
	}
	return d.cfg.BatchSize
}

func (d *Dispatcher) pollInterval() time.Duration {
	if d.flow.pollInterval > 0 {
		return d.flow.pollInterval
	}
	return d.cfg.PollInterval
}

// opContext bounds one claim, recovery or release by the lease.
func (d *Dispatcher) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return d.bounded(ctx, d.cfg.Lease)
}

// bounded bounds a wait by limit; no-timeouts-unfenced bounds nothing.
func (d *Dispatcher) bounded(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if d.flow.untimed {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, limit)
}

// openUntimedRedis is no-timeouts-unfenced's Redis client: no read or
// write timeout, and a context's deadline is not applied to the socket,
// so a command on a link that never answers waits until the link closes.
func openUntimedRedis(url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("open redis: %w", err)
	}
	opts.ReadTimeout, opts.WriteTimeout = -1, -1 // go-redis: -1 is no timeout
	opts.ContextTimeoutEnabled = false
	return redis.NewClient(opts), nil
}
