package reference

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// Dispatcher moves outbox events to BullMQ queues. Create it with New and
// drive it with Run; Claim, Process, RecoverExpired, Release and Poll expose
// the protocol's steps one by one (see doc.go).
type Dispatcher struct {
	cfg      Config
	db       *sql.DB
	rdb      redis.UniversalClient
	producer *bullmq.Producer
	fp       *failpoint.Set
	log      *slog.Logger
	metrics  *metrics
	jitter   *jitter
	clock    func() time.Time // injected SQL clock; nil = database clock
	local    func() time.Time // local clock for the lease check
	queues   map[string]bool
	owned    dispatchkit.Owned // what New opened itself

	health      *health
	redisB      *breaker               // is Redis answering (doc.go, "Dependency health")
	mysqlB      *breaker               // is MySQL answering
	metricsAddr atomic.Value           // string: where the metrics server listens
	lastRecover time.Time              // loop-local: when RecoverExpired last ran
	lastGauge   time.Time              // loop-local: when the backlog gauge was last refreshed
	errWidth    dispatchkit.ErrorWidth // last_error's width in characters, once read
}

// Option supplies a dependency to New instead of the one built from Config.
type Option func(*Dispatcher)

// WithDB uses db instead of opening Config.MySQLDSN. The caller closes it.
// Open it with OpenMySQL to get the pool settings the dispatcher relies on.
func WithDB(db *sql.DB) Option { return func(d *Dispatcher) { d.db = db } }

// WithRedis uses rdb instead of opening Config.RedisURL. The caller closes it.
func WithRedis(rdb redis.UniversalClient) Option { return func(d *Dispatcher) { d.rdb = rdb } }

// WithLogger replaces the JSON-to-stderr logger.
func WithLogger(l *slog.Logger) Option { return func(d *Dispatcher) { d.log = l } }

// WithFailpoints replaces the failpoints parsed from Config.Failpoints.
func WithFailpoints(s *failpoint.Set) Option { return func(d *Dispatcher) { d.fp = s } }

// WithClock injects "now" into every SQL statement (river's idea) instead of
// the database clock, for tests that need exact times. Production keeps the
// database clock: leases and backoff must not depend on instance clocks.
func WithClock(now func() time.Time) Option { return func(d *Dispatcher) { d.clock = now } }

// WithLocalClock replaces time.Now for the local lease check.
func WithLocalClock(now func() time.Time) Option { return func(d *Dispatcher) { d.local = now } }

// WithJitterSeed seeds the backoff jitter (default: the time of New).
func WithJitterSeed(seed int64) Option { return func(d *Dispatcher) { d.jitter = newJitter(seed) } }

// New validates cfg and builds a dispatcher. It does not contact MySQL or
// Redis: Run keeps polling through outages, and /healthz reports them.
func New(cfg Config, opts ...Option) (*Dispatcher, error) {
	cfg = cfg.WithDerived()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Dispatcher{cfg: cfg, local: time.Now, queues: map[string]bool{}}
	for _, q := range cfg.Queues {
		d.queues[q] = true
	}
	fp, err := failpoint.Parse(cfg.Failpoints, cfg.FailpointSeed)
	if err != nil {
		return nil, bad(envFailpoints, cfg.Failpoints, "%v", err)
	}
	d.fp = fp
	for _, o := range opts {
		o(d)
	}
	if err := d.fillDefaults(); err != nil {
		d.closeOwned()
		return nil, err
	}
	return d, nil
}

func (d *Dispatcher) fillDefaults() error {
	if d.log == nil {
		h := slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: d.cfg.LogLevel})
		d.log = slog.New(h)
	}
	d.log = d.log.With("instance", d.cfg.InstanceID)
	if d.jitter == nil {
		d.jitter = newJitter(time.Now().UnixNano())
	}
	if err := d.open(); err != nil {
		return err
	}
	p, err := bullmq.NewProducer(d.rdb, bullmq.Options{Prefix: d.cfg.BullPrefix, DedupeHorizon: d.cfg.DedupeHorizon,
		WaitReplicas: d.cfg.RedisReplicas, WaitTimeout: waitTimeout(d.cfg.PublishTimeout)})
	if err != nil {
		return fmt.Errorf("new dispatcher: %w", err)
	}
	d.producer = p
	d.metrics = newMetrics()
	d.redisB = newBreaker(depRedis, d.cfg.PollInterval, d.metrics, d.log, d.local)
	d.mysqlB = newBreaker(depMySQL, d.cfg.PollInterval, d.metrics, d.log, d.local)
	d.health = &health{window: max(10*d.cfg.PollInterval, d.cfg.Lease), nowLocal: d.local,
		breakers: []*breaker{d.mysqlB, d.redisB}}
	return nil
}

// Config returns the validated configuration in use.
func (d *Dispatcher) Config() Config { return d.cfg }

// Close closes the MySQL pool and Redis client New opened itself; injected
// ones stay open. Run calls it on return; call it when driving the
// dispatcher step by step. It is idempotent.
func (d *Dispatcher) Close() error { return d.closeOwned() }

// closeOwned closes the connections New opened; injected ones stay open.
func (d *Dispatcher) closeOwned() error { return d.owned.Close() }

// open opens the connections the options did not inject.
func (d *Dispatcher) open() error {
	err := dispatchkit.Open(&d.owned, &d.db, func() (*sql.DB, error) { return OpenMySQL(d.cfg.MySQLDSN) }, (*sql.DB).Close)
	if err != nil {
		return err
	}
	return dispatchkit.Open(&d.owned, &d.rdb, func() (redis.UniversalClient, error) {
		return OpenRedis(d.cfg.RedisURL, d.cfg.PublishTimeout)
	}, redis.UniversalClient.Close)
}

// nowArg is the argument for one sqlNow: nil (database clock) or the
// injected time.
func (d *Dispatcher) nowArg() any {
	if d.clock == nil {
		return nil
	}
	return d.clock().UTC()
}

// opContext bounds one MySQL operation (a statement or a transaction) by the
// lease: a claim's work is worthless after it anyway, and a blackholed
// connection must not hang the loop.
func (d *Dispatcher) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d.cfg.Lease)
}

// lockRetries is how many times inTx starts a transaction again after
// InnoDB answered one of its statements with a deadlock or a lock wait
// timeout (doc.go, "Lock conflicts").
const lockRetries = 3

// inTx runs fn in one transaction (READ COMMITTED, set per connection by
// OpenMySQL) and commits it; any error rolls back. A lock conflict
// (lockConflict) rolls back and runs fn again in a fresh transaction, up to
// lockRetries times, after a pause growing by 10 ms a try: fn must start
// from scratch each time.
func (d *Dispatcher) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	for try := 0; ; try++ {
		err := dispatchkit.InTx(ctx, d.db, fn)
		if err == nil || try == lockRetries || !lockConflict(err) || ctx.Err() != nil {
			return err
		}
		d.log.Info("transaction restarted after a lock conflict", "try", try+1, "error", err.Error())
		dispatchkit.Wait(ctx, time.Duration(try+1)*10*time.Millisecond)
	}
}
