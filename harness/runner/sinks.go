package runner

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/sink"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// sinkConfigAdapter is an adapter whose dispatcher publishes to a Redis
// stream or list (a manifest's sink section with kind redis-stream or
// redis-list).
type sinkConfigAdapter interface {
	SinkConfig() sink.Config
}

var (
	_ nemesis.CreationSource = (*observe.RedisObserver)(nil)
	_ nemesis.CreationSource = (*sinkRun)(nil)
	_ nemesis.Checkpointer   = (*observe.RedisObserver)(nil)
	_ nemesis.Checkpointer   = (*sinkRun)(nil)
)

// sinkOf is the adapter's stream or list sink, its keys the run's queues
// when it names none; ok is false for a BullMQ sink.
func sinkOf(a supervisor.Adapter, queues []string) (cfg sink.Config, ok bool, err error) {
	sa, isSink := a.(sinkConfigAdapter)
	if isSink {
		cfg = sa.SinkConfig()
	}
	kind := cfg.Kind
	ma, isModel := a.(modelAdapter)
	if isModel && !isSink && ma.SinkKind() != history.SinkBullMQ {
		return cfg, false, fmt.Errorf("adapter %s: its model's sink is %q but it gives no sink configuration (SinkConfig: keys, message id, payload)", a.Name(), ma.SinkKind())
	}
	if isModel && ma.SinkKind() != kind {
		return cfg, false, fmt.Errorf("adapter %s: its model's sink is %q, its sink configuration %q; declare one sink kind", a.Name(), ma.SinkKind(), kind)
	}
	if kind == history.SinkBullMQ {
		return cfg, false, nil
	}
	if len(cfg.Keys) == 0 {
		cfg.Keys = append([]string(nil), queues...)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, false, fmt.Errorf("adapter %s: %w", a.Name(), err)
	}
	return cfg, true, nil
}

// sinkRun follows a stream or list sink through one run: its observer, the
// scenario's consumer, the final scan.
type sinkRun struct {
	cfg      sink.Config
	rdb      *redis.Client
	rec      *history.Recorder
	obs      *observe.SinkObserver
	consumer *workload.SinkConsumer
	stopped  bool
}

// startSink starts the observer of the adapter's stream or list sink; it
// returns nil, and starts nothing, for a BullMQ sink. rdb is direct.
func startSink(ctx context.Context, a supervisor.Adapter, queues []string, rdb *redis.Client, rec *history.Recorder) (*sinkRun, error) {
	cfg, ok, err := sinkOf(a, queues)
	if err != nil || !ok {
		return nil, err
	}
	obs, err := observe.NewSinkObserver(rdb, cfg, rec)
	if err != nil {
		return nil, err
	}
	if err := obs.Start(ctx); err != nil {
		return nil, err
	}
	return &sinkRun{cfg: cfg, rdb: rdb, rec: rec, obs: obs}, nil
}

// Subscribe is the observer's creation signal (creationSource).
func (s *sinkRun) Subscribe(buffer int) *observe.Subscription { return s.obs.Subscribe(buffer) }

// Checkpoint flushes and resumes the sink's observer (nemesis.Checkpointer).
func (s *sinkRun) Checkpoint() error { return s.obs.Checkpoint() }

// newConsumer builds the scenario's consumer of the sink; the caller runs
// it (Run) as it runs a workload.Consumer.
func (s *sinkRun) newConsumer(db *sql.DB, m schema.Mapping, d model.Dialect, workers int, leaveRows bool) (*workload.SinkConsumer, error) {
	c, err := workload.NewSinkConsumer(workload.SinkConsumerConfig{Redis: s.rdb, DB: db, Schema: m, Dialect: d, Sink: s.cfg,
		Workers: workers, LeaveRows: leaveRows, Recorder: s.rec, Name: "consumer"})
	if err != nil {
		return nil, err
	}
	s.consumer = c
	return c, nil
}

// idle tells whether the sink holds nothing still to move or to take: a
// list's elements are all moved, and the consumer, if any, is idle.
func (s *sinkRun) idle(ctx context.Context) bool {
	if s.cfg.Kind == history.SinkList {
		for _, k := range s.cfg.Keys {
			if n, err := s.rdb.LLen(ctx, k).Result(); err != nil || n > 0 {
				return false
			}
		}
	}
	if s.consumer == nil {
		return true
	}
	ok, err := s.consumer.Idle(ctx)
	return err == nil && ok
}

// stop stops the observer once (it drains first); cleanup may call it
// again.
func (s *sinkRun) stop() error {
	if s.stopped {
		return nil
	}
	s.stopped = true
	if err := s.obs.Stop(); err != nil {
		return fmt.Errorf("stop sink observer: %w", err)
	}
	return nil
}

// finalAppends is what the sink holds that the observer did not record
// live (history.Final.Appends); call it after stop.
func (s *sinkRun) finalAppends(ctx context.Context) ([]history.Append, error) {
	return observe.ScanSinkFinal(ctx, s.rdb, s.cfg, s.rec.Snapshot().Appends)
}
