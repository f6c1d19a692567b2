package nemesis

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Config is what a Nemesis acts on: one run's live resources. The runner
// opens them, hands them over here, and closes them after the run; the
// nemesis never closes any.
type Config struct {
	Supervisor *supervisor.Supervisor // starts, signals and kills the instances
	Recorder   *history.Recorder      // where every fault window goes
	// Slots are the instance slots in order ("d1", "d2", ...); SlotEnv is
	// each slot's environment, which every restart of the slot gets.
	Slots   []string
	SlotEnv map[string]map[string]string
	// Links are each slot's fault-proxy links, "<store>/d1" ("mysql/d1")
	// and "redis/d1".
	Links map[string]*faultproxy.Proxy
	Env   env.Env // the servers, for RestartServer
	// StoreRestart says the environment can SIGKILL the store's server and
	// start it again in place, with its data (the runner's
	// NeedMySQLRestart): a generated schedule may then restart it.
	StoreRestart bool
	Capabilities supervisor.Capabilities
	Seed         int64 // the nemesis's randomness: Rand, Pick, failpoint seeds
	// DB is the run's database reached directly (not through a link), and
	// Schema its mapping: the traps look up who holds an event there.
	DB     *sql.DB
	Schema schema.Mapping
	// Observer signals job creations to the traps; without one, a trap
	// says so and lands nothing.
	Observer CreationSource
	// Progress counts events in a final state and all events, for
	// WaitProgress. Planned is how many events the workload writes: with
	// Progress, TrapCrashes tells when the workload is over (every planned
	// event written and final: no job is left to create). 0: never over.
	Progress func(ctx context.Context) (done, total int, err error)
	Planned  int
	Prefix   string   // the run's BullMQ key prefix
	Queues   []string // the run's queue allowlist
	// Sink is where the dispatcher publishes (history.Sink*: "" is
	// BullMQ); Redis faults that depend on it are bound to it.
	Sink string
	// Store is the outbox's database: "mysql" (the default) or
	// "postgres". A schedule's "mysql" dependency means the store, whichever
	// it is: its links are Links[Store+"/"+slot]. Dialect is its SQL, for
	// the traps' look-ups (model.MySQL when zero).
	Store   string
	Dialect model.Dialect
	// History is the triggers' history table, quoted for the store, and
	// Writers maps each account it records to a slot: for an outbox without
	// locked_by, the traps tell who holds a claim by who wrote it.
	History string
	Writers map[string]string
	// ReadOnly sets (true) or clears the store server's read_only, for
	// StoreReadOnly; nil when the environment does not allow it.
	ReadOnly func(ctx context.Context, on bool) error
}

// New returns the nemesis of one run, or what is missing from c.
func New(c Config) (*Nemesis, error) {
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("nemesis: %w", err)
	}
	slotEnv := make(map[string]map[string]string, len(c.Slots))
	for _, s := range c.Slots {
		slotEnv[s] = cloneMap(c.SlotEnv[s])
	}
	return &Nemesis{
		sup: c.Supervisor, links: c.Links, env: c.Env, rec: c.Recorder, draws: newDraws(c.Seed),
		slots: append([]string(nil), c.Slots...), slotEnv: slotEnv, caps: c.Capabilities,
		db: c.DB, obs: c.Observer, schema: c.Schema, progress: c.Progress, planned: c.Planned,
		prefix: c.Prefix, queues: append([]string(nil), c.Queues...), sink: c.Sink,
		store: storeDep(c.Store), dialect: dialectOr(c.Dialect), history: c.History, writers: c.Writers,
		storeRestart: c.StoreRestart, readOnly: c.ReadOnly,
	}, nil
}

func (c Config) validate() error {
	var errs []error
	if c.Supervisor == nil {
		errs = append(errs, errors.New("no supervisor"))
	}
	if c.Recorder == nil {
		errs = append(errs, errors.New("no recorder"))
	}
	if len(c.Slots) == 0 {
		errs = append(errs, errors.New("no slots"))
	}
	if err := faultproxy.ValidStore(c.Store); err != nil {
		errs = append(errs, err)
	}
	for _, s := range c.Slots {
		if _, ok := c.SlotEnv[s]; !ok {
			errs = append(errs, fmt.Errorf("slot %s has no environment", s))
		}
		for _, dep := range []string{storeDep(c.Store), "redis"} {
			if c.Links[dep+"/"+s] == nil {
				errs = append(errs, fmt.Errorf("slot %s has no %s link", s, dep))
			}
		}
	}
	return errors.Join(errs...)
}

// storeDep is the dependency a store's links are named after ("" is
// MySQL).
func storeDep(store string) string {
	if store == "" {
		return faultproxy.StoreMySQL
	}
	return store
}

// Revive starts every slot that has no live instance, with the slot's own
// environment (no failpoint, no skew): the heal phase's last step.
func (n *Nemesis) Revive(ctx context.Context) error {
	for _, slot := range n.slots {
		if !n.alive(slot) {
			if err := n.start(ctx, slot, n.slotEnv[slot]); err != nil {
				return err
			}
		}
	}
	return nil
}

// CreationSource is what the traps need of an observer: the live signal of
// every job or message that comes into being (observe.RedisObserver for
// BullMQ, observe.SinkObserver for a stream or list sink).
type CreationSource interface {
	Subscribe(buffer int) *observe.Subscription
}

// dialectOr is d, MySQL's when d is the zero value.
func dialectOr(d model.Dialect) model.Dialect {
	if d.Quote == nil {
		return model.MySQL
	}
	return d
}
