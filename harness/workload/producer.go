package workload

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// DefaultDeniedQueue is the queue poison events of kind queue-not-allowed name
// when ProducerConfig.DeniedQueue is empty.
const DefaultDeniedQueue = "ai-forbidden"

// ProducerConfig configures a Producer.
type ProducerConfig struct {
	DB     *sql.DB
	Schema schema.Mapping
	// Queues is the dispatcher's allowlist; valid events name one of them.
	Queues []string
	// DeniedQueue is a queue outside the allowlist (default "ai-forbidden").
	DeniedQueue string
	// Rate is events per second for Produce; 0 means as fast as possible.
	Rate float64
	Mix  Mix
	// Rand draws kinds and queues; seed it to replay a run.
	Rand     *rand.Rand
	Recorder *history.Recorder
	// RunID makes job ids unique across runs: letters, digits, '_' and '-',
	// at most 40 characters.
	RunID string
	// Aggregates, when > 0, spreads the events round-robin over that many
	// aggregates (the ordering scenario): each event's payload names its
	// aggregate, {"jobId": "<id>", "aggregate": "a-<run>-<k>"}, and every
	// event of an aggregate goes to one queue. 0 writes the contract's
	// payload, one event per job and no aggregate.
	Aggregates int
	// Hold holds a share of Produce's transactions open (hold.go); the
	// zero value holds none.
	Hold Hold
	// Dialect is the store's SQL (model.MySQL when zero, or
	// model.Postgres).
	Dialect model.Dialect
}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// Validate checks the configuration and fills in defaults.
func (c *ProducerConfig) Validate() error {
	if c.DB == nil {
		return fmt.Errorf("producer: DB is nil; pass an open *sql.DB for the dispatcher's database")
	}
	if err := c.Schema.Validate(); err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	if c.DeniedQueue == "" {
		c.DeniedQueue = DefaultDeniedQueue
	}
	if err := validateQueues(c.Queues); err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	if slices.Contains(c.Queues, c.DeniedQueue) {
		return fmt.Errorf("producer: DeniedQueue %q is in the allowlist Queues; pick a queue outside it", c.DeniedQueue)
	}
	if c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) {
		return fmt.Errorf("producer: Rate %v: use events per second > 0, or 0 for as fast as possible", c.Rate)
	}
	if err := c.Mix.Validate(); err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	if c.Aggregates < 0 {
		return fmt.Errorf("producer: Aggregates %d: use 0 (no ordering key) or the number of aggregates", c.Aggregates)
	}
	if c.Rand == nil {
		return fmt.Errorf("producer: Rand is nil; pass rand.New(rand.NewPCG(seed, seed)) so the run can be replayed")
	}
	if c.Recorder == nil {
		return fmt.Errorf("producer: Recorder is nil; pass the run's history.Recorder")
	}
	if err := c.Hold.Validate(); err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	if !runIDPattern.MatchString(c.RunID) {
		return fmt.Errorf("producer: RunID %q: use 1 to 40 letters, digits, '_' or '-'", c.RunID)
	}
	return nil
}

func validateQueues(queues []string) error {
	if len(queues) == 0 {
		return fmt.Errorf("no queues; name at least one allowed queue")
	}
	for _, q := range queues {
		if strings.TrimSpace(q) == "" || strings.Contains(q, ":") {
			return fmt.Errorf("queue name %q: use a non-empty name without ':'", q)
		}
	}
	return nil
}

// statusWords are the dispatcher's words for the statuses the producer writes.
type statusWords struct{ pending, created, queued string }

// Producer commits outbox events as an application would. It is not safe for
// concurrent use: one goroutine drives it, as one seeded sequence.
type Producer struct {
	cfg   ProducerConfig
	words statusWords
	seq   int64
	// validOnly makes every event valid (a producer command's, which
	// writes no poison).
	validOnly bool
	sql       sqlText
}

// NewProducer validates cfg and returns a producer.
func NewProducer(cfg ProducerConfig) (*Producer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var w statusWords
	var err error
	if cfg.Schema.StatusWords() {
		if w.pending, err = cfg.Schema.Word(history.StatusPending); err != nil {
			return nil, fmt.Errorf("producer: %w", err)
		}
	}
	if cfg.Schema.HasJobs() {
		if w.created, err = cfg.Schema.JobWord(history.JobCreated); err != nil {
			return nil, fmt.Errorf("producer: %w", err)
		}
		if w.queued, err = cfg.Schema.JobWord(history.JobQueued); err != nil {
			return nil, fmt.Errorf("producer: %w", err)
		}
	}
	return &Producer{cfg: cfg, words: w, sql: dialectOr(cfg.Dialect)}, nil
}

// Produce commits n events at the configured rate and mix, each in its own
// transaction, and records each with the outbox id the database assigned.
// Event i of the call commits no earlier than i/Rate seconds after the call;
// an event drawn for a Hold is inserted then, committed after its hold in
// the background, and recorded at its commit. Produce returns once every
// held transaction has ended. A connection lost to a server restart is
// ridden out (commitOne).
func (p *Producer) Produce(ctx context.Context, n int) error {
	if n < 0 {
		return fmt.Errorf("produce: n is %d; use 0 or more", n)
	}
	hs := holds{end: make(chan struct{}), cut: make(chan struct{})}
	err := p.produce(ctx, n, &hs)
	close(hs.end)
	if werr := hs.wait(); err == nil {
		err = werr
	}
	return err
}

func (p *Producer) produce(ctx context.Context, n int, hs *holds) error {
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := p.pace(ctx, start, i); err != nil {
			return fmt.Errorf("produce event %d of %d: %w", i+1, n, err)
		}
		if err := hs.err(); err != nil {
			return err
		}
		ev := p.plan()
		if d, late := p.drawHold(i, n); d > 0 {
			if err := p.startHeld(ctx, hs, ev, d, late); err != nil {
				return fmt.Errorf("produce event %d of %d (job %s): %w", i+1, n, ev.jobID, err)
			}
			continue
		}
		id, err := p.commitOne(ctx, ev, hs.cutLate)
		if err != nil {
			return fmt.Errorf("produce event %d of %d (job %s): %w", i+1, n, ev.jobID, err)
		}
		e := p.event(ev, id)
		e.Produced = time.Now().UTC()
		p.cfg.Recorder.AddEvent(e)
	}
	return nil
}

// pace waits until event i is due.
func (p *Producer) pace(ctx context.Context, start time.Time, i int) error {
	if p.cfg.Rate == 0 || i == 0 {
		return ctx.Err()
	}
	due := start.Add(time.Duration(float64(i) / p.cfg.Rate * float64(time.Second)))
	return sleep.For(ctx, time.Until(due))
}

// commitOne writes one event in one transaction and returns its outbox id.
// When the connection is lost (the server was killed, or is starting), it
// settles the event: the transaction is written again unless it committed.
// A deadlock or lock wait timeout (a dispatcher's claim holding gap locks
// the INSERT waits on) rolls the transaction back, and it is written again,
// as an application would: the run is not the producer's to abort. Each
// conflict calls conflicted first (holds.cutLate).
func (p *Producer) commitOne(ctx context.Context, ev planned, conflicted func()) (int64, error) {
	var id int64
	err := retryLockConflicts(ctx, conflicted, func() (err error) {
		id, err = p.commitOnce(ctx, ev)
		return err
	})
	return id, err
}

// retryLockConflicts runs write until it does not fail on a deadlock or
// lock wait timeout (lockConflict), at most lockConflictAttempts times,
// calling conflicted after each conflict and waiting a little longer each
// time.
func retryLockConflicts(ctx context.Context, conflicted func(), write func() error) error {
	for attempt := 1; ; attempt++ {
		err := write()
		if err == nil || !lockConflict(err) || attempt == lockConflictAttempts {
			return err
		}
		conflicted()
		if err := sleep.For(ctx, time.Duration(attempt)*10*time.Millisecond); err != nil {
			return err
		}
	}
}

func (p *Producer) commitOnce(ctx context.Context, ev planned) (int64, error) {
	tx, id, err := p.insertOne(ctx, ev)
	if err == nil {
		if err = tx.Commit(); err == nil {
			return id, nil
		}
		_ = tx.Rollback()
		err = fmt.Errorf("commit: %w", err)
	}
	if !lostConnection(err) {
		return 0, err
	}
	return p.settle(ctx, ev)
}

// insertOne begins a transaction and writes the event's rows; the caller
// commits it. It returns the outbox id the database assigned.
func (p *Producer) insertOne(ctx context.Context, ev planned) (*sql.Tx, int64, error) {
	tx, err := p.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("begin: %w", err)
	}
	id, err := p.insertRows(ctx, tx, ev)
	if err != nil {
		_ = tx.Rollback()
		return nil, 0, err
	}
	return tx, id, nil
}

func (p *Producer) insertRows(ctx context.Context, tx *sql.Tx, ev planned) (int64, error) {
	if ev.hasJob {
		if _, err := tx.ExecContext(ctx, p.jobsInsert(1), ev.jobID, ev.queue, ev.jobStatus); err != nil {
			return 0, fmt.Errorf("insert jobs row: %w", err)
		}
	}
	row := p.row(ev)
	if p.returning() {
		var id int64
		if err := tx.QueryRowContext(ctx, p.outboxInsert(row.cols, 1), row.vals...).Scan(&id); err != nil {
			return 0, fmt.Errorf("insert outbox row: %w", err)
		}
		return id, nil
	}
	res, err := tx.ExecContext(ctx, p.outboxInsert(row.cols, 1), row.vals...)
	if err != nil {
		return 0, fmt.Errorf("insert outbox row: %w", err)
	}
	if p.cfg.Schema.Outbox.IDType != schema.KeyAuto {
		return ev.num, nil
	}
	id, err := res.LastInsertId()
	if err != nil || id == 0 {
		return 0, fmt.Errorf("outbox id: the database assigned none (is %s.%s AUTO_INCREMENT?): %v",
			p.cfg.Schema.Outbox.Table, p.cfg.Schema.Outbox.ID, err)
	}
	return id, nil
}

// jobsInsert is an INSERT of rows jobs rows (id, queue, status).
func (p *Producer) jobsInsert(rows int) string {
	j := p.cfg.Schema.Jobs
	s := p.sql
	return fmt.Sprintf("INSERT INTO %s (%s, %s, %s) VALUES %s", s.q(j.Table),
		s.q(j.ID), s.q(j.Queue), s.q(j.Status), s.rows(1, 3, rows))
}

// returning tells whether the database reports a new row's id through
// RETURNING (PostgreSQL) rather than the last insert id (MySQL).
func (p *Producer) returning() bool {
	return p.sql.d.Numbered && p.cfg.Schema.Outbox.IDType == schema.KeyAuto
}

// outboxInsert is an INSERT of rows outbox rows into cols (row); the
// database fills in the rest.
func (p *Producer) outboxInsert(cols []string, rows int) string {
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = p.sql.q(c)
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", p.sql.q(p.cfg.Schema.Outbox.Table), strings.Join(quoted, ", "),
		p.sql.rows(1, len(cols), rows))
	if p.returning() {
		q += " RETURNING " + p.sql.q(p.cfg.Schema.Outbox.ID)
	}
	return q
}
