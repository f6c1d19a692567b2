package runner

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// producerAdapter is an adapter that writes the workload through the
// team's own producer command (a manifest's producer section).
type producerAdapter interface {
	ProducerSpec(contract map[string]string) (supervisor.Spec, bool, error)
}

// hasProducer tells whether a's dispatcher brings its own producer.
func hasProducer(a supervisor.Adapter) bool {
	pa, ok := a.(producerAdapter)
	if !ok {
		return false
	}
	_, has, _ := pa.ProducerSpec(nil)
	return has
}

// producing is what load drives: the harness's producer or the team's.
type producing interface {
	Produce(ctx context.Context, n int) error
}

// producer is the run's producer: the adapter's command when it names one,
// with the contract's variables pointing straight at MySQL and Redis (the
// application's writes are not the dispatcher's: no fault touches them),
// else the harness's own.
func (r *session) producer(cfg workload.ProducerConfig) (producing, error) {
	pa, ok := r.o.Adapter.(producerAdapter)
	if !ok {
		return workload.NewProducer(cfg)
	}
	contract, err := r.directEnv()
	if err != nil {
		return nil, err
	}
	spec, has, err := pa.ProducerSpec(contract)
	if err != nil || !has {
		if err != nil {
			return nil, err
		}
		return workload.NewProducer(cfg)
	}
	log, err := os.Create(filepath.Join(r.o.Out, "logs", "producer.log"))
	if err != nil {
		return nil, fmt.Errorf("producer log: %w", err)
	}
	r.closers = append(r.closers, log.Close)
	cmd := supervisor.Command(context.Background(), spec)
	cmd.Stderr = log
	return workload.NewCommandProducer(cfg, cmd)
}

// directEnv is the contract's database and Redis variables for the
// producer command, straight to the servers as the harness's own user.
func (r *session) directEnv() (map[string]string, error) {
	vars, err := r.dbs.directVars()
	if err != nil {
		return nil, err
	}
	maps.Copy(vars, map[string]string{
		"OUTBOX_REDIS_URL":   env.RedisURL(r.o.Env, r.o.Env.RedisAddr()),
		"OUTBOX_QUEUES":      strings.Join(r.queues, ","),
		"OUTBOX_BULL_PREFIX": r.prefix,
	})
	return vars, nil
}
