package runner

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand"
	randv2 "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/store"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// Options is one run's input.
type Options struct {
	Scenario Scenario
	Adapter  supervisor.Adapter
	Env      env.Env // opened by the caller; several runs may share it
	Seed     int64
	Out      string    // the run folder; created
	Progress io.Writer // phase and progress lines; nil for none
	Command  string    // the command line that reproduces the run
	Queues   []string  // allowlist; default ai-default, ai-bulk
	WorkDir  string    // where adapters build; default Out/../.work
}

// Outcome is what a run decided.
type Outcome struct {
	Dir     string
	Verdict check.Verdict
	Reason  string // why the verdict is not a pass (check.Fold); "" for a pass
	Results []check.Result
	Landing []check.Landing // the scenario's landing requirements, judged
	Skipped string          // non-empty when the scenario needed a missing capability
	// Declarations name what the manifest could declare so that a skipped
	// scenario runs (capabilities.clock for clock-skew). A run's own, what
	// would settle its unknowns, are in its results (check.Declarations):
	// the CLI copies them here once it has written the report.
	Declarations []declare.Suggestion
	// History is the run as its folder stores it (redacted), which the
	// results judged; the caller renders the report from it and Results
	// (reports.WriteRunResults). Zero when skipped.
	History history.Run
}

// Exit codes of the CLI.
const (
	ExitPass         = 0
	ExitFail         = 1
	ExitUnknown      = 2
	ExitHarnessError = 3
)

// ExitCode maps an outcome (or a harness error) onto the CLI's exit codes:
// 0 pass, 1 fail, 2 anything else (unknown, no verdict, a verdict this build
// does not know), 3 harness error.
func ExitCode(o Outcome, err error) int {
	switch {
	case err != nil:
		return ExitHarnessError
	case o.Verdict == check.Pass:
		return ExitPass
	case o.Verdict == check.Fail:
		return ExitFail
	}
	return ExitUnknown
}

// WorstExit folds several runs' exit codes into one: a harness error over a
// fail, a fail over an unknown, an unknown over a pass.
func WorstExit(codes ...int) int {
	rank := map[int]int{ExitPass: 0, ExitUnknown: 1, ExitFail: 2, ExitHarnessError: 3}
	worst := ExitPass
	for _, c := range codes {
		r, ok := rank[c]
		if !ok {
			r, c = rank[ExitHarnessError], ExitHarnessError
		}
		if r > rank[worst] {
			worst = c
		}
	}
	return worst
}

func (o Options) validate() error {
	if err := o.Scenario.Validate(); err != nil {
		return err
	}
	switch {
	case o.Adapter == nil:
		return errors.New("run: no adapter")
	case o.Env == nil:
		return errors.New("run: no environment")
	case o.Out == "":
		return errors.New("run: no output folder (--out)")
	}
	return nil
}

// Missing returns why the adapter or environment cannot run the scenario, or
// "" when it can.
func Missing(s Scenario, a supervisor.Adapter, e env.Env) string {
	caps := a.Capabilities()
	st, err := storeOf(a)
	if err != nil {
		return err.Error()
	}
	pg := st.Name() == store.NamePostgres
	if caps.Durability == supervisor.DurabilityWait && env.RedisReplicaAddr(e) == "" {
		return "the adapter declares durability: wait, and the " + e.Name() + " environment runs no Redis replica for its WAIT to count (the local environment runs one when the adapter declares it)"
	}
	for _, n := range s.Needs {
		switch {
		case n == NeedCrashPoints && !caps.CrashPoints:
			return "the adapter exposes no crash points"
		case n == NeedGracefulTerm && !caps.GracefulTerm:
			return "the adapter does not declare SIGTERM graceful"
		case n == NeedServerCtl && (e.Redis() == nil || !pg && e.MySQL() == nil):
			return "the " + e.Name() + " environment cannot kill and restart servers"
		case n == NeedMySQLRestart && storeRestartMissing(e, pg) != "":
			return storeRestartMissing(e, pg)
		case n == NeedServerZone && serverZoneMissing(e, pg) != "":
			return serverZoneMissing(e, pg)
		case n == NeedLastError && a.Schema().Outbox.LastError == "":
			return "the adapter's outbox maps no last_error column: there is no failure text whose column could be narrowed"
		case n == NeedTimeColumns && len(timeColumns(a.Schema())) == 0:
			return "the adapter's outbox maps neither locked_until nor available_at: no lease or backoff is written in a column whose precision could be cut"
		}
		if why := missingClockOrOrder(n, caps.Clock, caps.Ordering); why != "" {
			return why
		}
	}
	return ""
}

// readOnlySwitch is the store's read_only switch for the nemesis, nil when
// the store is not the harness's own MySQL server with slot accounts.
func (r *session) readOnlySwitch() func(ctx context.Context, on bool) error {
	md, ok := r.dbs.(*mysqlDatabase)
	if !ok {
		return nil
	}
	return md.readOnly(&r.closers)
}

// storeRestartMissing says why the environment cannot SIGKILL the store's
// server and restart it in place with its data, or "" when it can.
func storeRestartMissing(e env.Env, pg bool) string {
	if pg {
		if e.Name() != "local" {
			return "the " + e.Name() + " environment's PostgreSQL cannot be killed and restarted in place: only the local environment's private server can"
		}
		return ""
	}
	return env.MySQLRestartInPlace(e)
}

// Run runs one scenario end to end. A harness failure returns an error; a
// dispatcher failure is a verdict.
func Run(ctx context.Context, o Options) (Outcome, error) {
	if err := o.validate(); err != nil {
		return Outcome{}, err
	}
	out := Outcome{Dir: o.Out}
	why := Missing(o.Scenario, o.Adapter, o.Env)
	if why == "" {
		why = NotApplicable(o.Scenario, OutboxModel(o.Adapter))
	}
	if why == "" && o.Scenario.Hold != (workload.Hold{}) && hasProducer(o.Adapter) {
		why = "the scenario holds producer transactions open, and the adapter's own producer command commits each event itself"
	}
	if why != "" {
		out.Skipped = why
		out.Verdict = check.Unknown
		out.Declarations = skipDeclarations(o.Scenario, o.Adapter)
		return out, nil
	}
	r := &session{o: o, log: progressLog(o.Progress, o.Scenario.Name)}
	defer r.close()
	if err := r.setup(ctx); err != nil {
		return out, fmt.Errorf("%s setup: %w", o.Scenario.Name, err)
	}
	if err := r.load(ctx); err != nil {
		return out, fmt.Errorf("%s load: %w", o.Scenario.Name, err)
	}
	if err := r.heal(ctx); err != nil {
		return out, fmt.Errorf("%s heal: %w", o.Scenario.Name, err)
	}
	if err := r.drain(ctx); err != nil {
		return out, fmt.Errorf("%s drain: %w", o.Scenario.Name, err)
	}
	h, results, err := r.finish(ctx)
	if err != nil {
		return out, fmt.Errorf("%s check: %w", o.Scenario.Name, err)
	}
	out.History, out.Results, out.Landing = h, results, check.CheckLanding(h)
	// Nothing checked, an exercised invariant with nothing to check, or a
	// fault that did not land: not a pass.
	out.Verdict, out.Reason = check.Decide(results, o.Scenario.Exercises, out.Landing)
	if out.Reason != "" {
		r.log("verdict %s: %s (%s)", strings.ToUpper(string(out.Verdict)), out.Reason, o.Out)
	} else {
		r.log("verdict %s (%s)", strings.ToUpper(string(out.Verdict)), o.Out)
	}
	if lost := check.LostAdds(h); len(lost) > 0 {
		r.log("Redis lost %d jobs after running their adds (its own loss, not the dispatcher's): the report's \"What Redis lost\"", len(lost))
	}
	return out, nil
}

// session holds one run's live resources; close releases all of them.
type session struct {
	o       Options
	log     func(format string, args ...any)
	rng     *mrand.Rand
	dbs     database // the run's database on its store's server
	db      *sql.DB  // the harness's own connection to it
	rdb     *redis.Client
	prefix  string
	queues  []string
	rec     *history.Recorder
	proxy   *faultproxy.Server
	links   map[string]*faultproxy.Proxy
	sup     *supervisor.Supervisor
	obs     *observe.RedisObserver
	sink    *sinkRun // a stream or list sink's observer; nil for BullMQ
	obsDone bool
	nem     *nemesis.Nemesis
	stopBg  context.CancelFunc
	bgDone  chan error
	closers []func() error
	zones   *history.Zones // the scenario's zones as applied; nil for none
	// narrowed is the statement that narrowed last_error (LastErrorWidth),
	// "" when nothing was narrowed; schemaChangedAt is when the run's schema
	// changes (a narrowing, a coarsening) were made.
	narrowed        string
	schemaChangedAt time.Time
	// coarsened are the statements that altered the lease and backoff
	// columns to whole seconds (WholeSeconds); precision is what the
	// server keeps in those columns where fewer than six digits.
	coarsened []string
	precision map[string]int
}

func (r *session) setup(ctx context.Context) error {
	r.rng = mrand.New(mrand.NewSource(r.o.Seed))
	r.queues = r.o.Queues
	if sa, ok := r.o.Adapter.(sinkAdapter); ok && len(sa.Queues()) > 0 {
		r.queues = sa.Queues()
	}
	if len(r.queues) == 0 {
		r.queues = []string{"ai-default", "ai-bulk"}
	}
	if cfg, ok, err := sinkOf(r.o.Adapter, r.queues); err != nil {
		return err
	} else if ok {
		r.queues = cfg.Keys // the stream or list keys are the run's queues
	}
	if err := os.MkdirAll(filepath.Join(r.o.Out, "logs"), 0o755); err != nil {
		return fmt.Errorf("run folder: %w", err)
	}
	r.log("setup: %s environment, adapter %s, seed %d", r.o.Env.Name(), r.o.Adapter.Name(), r.o.Seed)
	steps := []func(context.Context) error{r.openDatabase, r.openRedis, r.startRecorder, r.startProxy, r.startObservers, r.startInstances}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (r *session) openRedis(ctx context.Context) error {
	r.rdb = redis.NewClient(env.RedisOptions(r.o.Env))
	r.closers = append(r.closers, r.rdb.Close)
	r.prefix = "bull"
	if sa, ok := r.o.Adapter.(sinkAdapter); ok && sa.Prefix() != "" {
		// The dispatcher names its own prefix (it may not honour
		// OUTBOX_BULL_PREFIX); the harness follows it.
		r.prefix = sa.Prefix()
	} else if r.o.Env.Name() == "external" {
		// Never touch another team's keys on a shared server.
		r.prefix = "oc" + randomHex(4)
		return nil
	}
	if err := r.rdb.FlushDB(ctx).Err(); err != nil {
		return fmt.Errorf("flush private redis: %w", err)
	}
	compactAOF(ctx, r.rdb)
	return nil
}

// compactAOF rewrites a persistent Redis's append-only file after the flush,
// so a restart in this run replays only this run's writes, quickly. A
// rewrite already running, or no AOF at all, is fine.
func compactAOF(ctx context.Context, rdb *redis.Client) {
	if v, err := rdb.ConfigGet(ctx, "appendonly").Result(); err != nil || v["appendonly"] != "yes" {
		return
	}
	_ = rdb.BgRewriteAOF(ctx).Err()
}

func (r *session) startRecorder(ctx context.Context) error {
	versions, err := r.o.Env.Versions(ctx)
	if err != nil {
		return fmt.Errorf("server versions: %w", err)
	}
	s := r.o.Scenario
	r.rec = history.NewRecorder(history.Meta{
		Scenario: s.Name, Seed: r.o.Seed, Params: s.ShownParams(), Adapter: r.o.Adapter.Name(),
		Environment: r.o.Env.Name(), Versions: versions, Command: r.o.Command, Prefix: r.prefix,
		Queues: r.queues, Tuning: honoured(s.Tuning, r.o.Adapter.Capabilities()), Waived: s.Waived,
		Exercises: append([]string(nil), s.Exercises...), Started: time.Now().UTC(),
		Landing:  history.LandingFor(s.Landing, r.o.Adapter.Capabilities().CrashPoints),
		Consumer: s.Consumer, RemoveOnEnd: s.RemoveOnComplete, Conventions: conventionsOf(r.o.Adapter),
		Ordering: r.o.Adapter.Capabilities().Ordering, Durability: r.o.Adapter.Capabilities().Durability, Model: r.outboxModel(), Zones: r.zones,
	})
	r.recordSchemaChanges()
	return nil
}

func (r *session) startProxy(ctx context.Context) error {
	r.proxy = faultproxy.NewServer(mrand.New(mrand.NewSource(r.o.Seed ^ 0x5eed)))
	r.closers = append(r.closers, r.proxy.Close)
	r.links = map[string]*faultproxy.Proxy{}
	for _, slot := range slots(r.o.Scenario.Instances) {
		for dep, up := range map[string]string{r.dbs.store().Name(): r.dbs.upstream(), "redis": r.o.Env.RedisAddr()} {
			p, err := r.proxy.Link(dep+"/"+slot, up)
			if err != nil {
				return fmt.Errorf("fault proxy link %s/%s: %w", dep, slot, err)
			}
			r.links[dep+"/"+slot] = p
		}
	}
	return nil
}

func (r *session) startObservers(ctx context.Context) error {
	s, err := startSink(ctx, r.o.Adapter, r.queues, r.rdb, r.rec)
	if err != nil {
		return fmt.Errorf("sink observer: %w", err)
	}
	r.sink = s
	if s == nil {
		r.obs = observe.NewRedisObserver(r.rdb, r.prefix, r.queues, r.rec)
		if err := r.obs.Start(ctx); err != nil {
			return fmt.Errorf("redis observer: %w", err)
		}
	}
	r.closers = append(r.closers, r.stopObserver)
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.stopBg = cancel
	r.bgDone = make(chan error, 1)
	if !r.o.Scenario.Consumer {
		r.bgDone <- nil
		return nil
	}
	if r.sink != nil {
		c, err := r.sink.newConsumer(r.db, r.o.Adapter.Schema(), r.dbs.store().Dialect(), 2, r.o.Scenario.ConsumerLeavesRows)
		if err != nil {
			cancel()
			return fmt.Errorf("consumer: %w", err)
		}
		go func() { r.bgDone <- c.Run(bg) }()
		return nil
	}
	c, err := workload.NewConsumer(workload.ConsumerConfig{
		Redis: r.rdb, DB: r.db, Schema: r.o.Adapter.Schema(), Dialect: r.dbs.store().Dialect(), Prefix: r.prefix, Queues: r.queues,
		Workers: 2, RemoveOnComplete: r.o.Scenario.RemoveOnComplete, LeaveRows: r.o.Scenario.ConsumerLeavesRows,
		Recorder: r.rec, Name: "consumer",
	})
	if err != nil {
		cancel()
		return fmt.Errorf("consumer: %w", err)
	}
	go func() { r.bgDone <- c.Run(bg) }()
	return nil
}

func (r *session) startInstances(ctx context.Context) error {
	work := r.o.WorkDir
	if work == "" {
		work = filepath.Join(filepath.Dir(r.o.Out), ".work")
	}
	if err := r.o.Adapter.Prepare(ctx, work); err != nil {
		return fmt.Errorf("prepare adapter %s: %w", r.o.Adapter.Name(), err)
	}
	r.sup = supervisor.New(r.o.Adapter, r.rec, filepath.Join(r.o.Out, "logs"))
	r.closers = append(r.closers, r.sup.Close)
	slotEnv, err := r.slotEnvs()
	if err != nil {
		return err
	}
	nem, err := nemesis.New(nemesis.Config{
		Supervisor: r.sup, Recorder: r.rec, Slots: slots(r.o.Scenario.Instances), SlotEnv: slotEnv,
		Links: r.links, Env: r.o.Env, StoreRestart: storeRestartMissing(r.o.Env, r.dbs.store().Name() == store.NamePostgres) == "",
		Capabilities: r.o.Adapter.Capabilities(), Seed: r.rng.Int63(),
		DB: r.db, Schema: r.o.Adapter.Schema(), Observer: r.creations(), Progress: r.progress, Planned: r.o.Scenario.Events,
		Prefix: r.prefix, Queues: r.queues, Sink: OutboxModel(r.o.Adapter).Sink,
		Store: r.dbs.store().Name(), Dialect: r.dbs.store().Dialect(),
		History: r.dbs.store().HistoryTable(), Writers: r.dbs.slotWriters(), ReadOnly: r.readOnlySwitch(),
	})
	if err != nil {
		return err
	}
	r.nem = nem
	for _, slot := range nem.Slots() {
		if _, err := r.sup.Start(ctx, slot, slotEnv[slot]); err != nil {
			return fmt.Errorf("start instance %s: %w", slot, err)
		}
	}
	r.log("setup: %d instances started", len(r.nem.Slots()))
	return nil
}

// slotEnvs is every slot's contract environment (contractEnv).
func (r *session) slotEnvs() (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, slot := range slots(r.o.Scenario.Instances) {
		e, err := r.contractEnv(slot)
		if err != nil {
			return nil, err
		}
		out[slot] = e
	}
	return out, nil
}

func (r *session) close() {
	if r.stopBg != nil {
		r.stopBg()
	}
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := r.closers[i](); err != nil {
			r.log("cleanup: %v", err)
		}
	}
}

func slots(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("d%d", i+1)
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func progressLog(w io.Writer, name string) func(string, ...any) {
	if w == nil {
		return func(string, ...any) {}
	}
	start := time.Now()
	return func(format string, args ...any) {
		fmt.Fprintf(w, "[%6.1fs] %s: %s\n", time.Since(start).Seconds(), name, fmt.Sprintf(format, args...))
	}
}

// randFrom derives an independent seeded source, so adding a draw in one
// component does not shift another's sequence.
func randFrom(r *mrand.Rand) *randv2.Rand {
	return randv2.New(randv2.NewPCG(uint64(r.Int63()), uint64(r.Int63())))
}

// stopObserver stops the Redis observer once; finish stops it before the
// final scan, cleanup stops it when a phase failed earlier.
func (r *session) stopObserver() error {
	if r.obsDone {
		return nil
	}
	r.obsDone = true
	if r.sink != nil {
		return r.sink.stop()
	}
	return r.obs.Stop()
}

// creations is the run's creation signal for the traps: the sink's
// observer, or the BullMQ observer (never a nil pointer in the interface).
func (r *session) creations() nemesis.CreationSource {
	if r.sink != nil {
		return r.sink
	}
	return r.obs
}

// sinkAdapter is an adapter that names its own BullMQ prefix and queues (a
// manifest's sink section).
type sinkAdapter interface {
	Prefix() string
	Queues() []string
}

// conventionsAdapter is an adapter that declares how its dispatcher's
// releases and recoveries look (a manifest's conventions section; the
// reference's own).
type conventionsAdapter interface {
	Conventions() history.Conventions
}

// conventionsOf is what the adapter declares, copied into Meta so a stored
// run re-checks the same; nothing when it declares nothing.
func conventionsOf(a supervisor.Adapter) history.Conventions {
	if ca, ok := a.(conventionsAdapter); ok {
		return ca.Conventions()
	}
	return history.Conventions{}
}

// honoured zeroes the tuning the adapter does not honour, so the checkers
// derive no bound from a value the dispatcher never saw.
func honoured(t history.Tuning, c supervisor.Capabilities) history.Tuning {
	zero := func(name string, f func()) {
		if !c.Honours(name) {
			f()
		}
	}
	zero("OUTBOX_POLL_INTERVAL", func() { t.PollInterval = 0 })
	zero("OUTBOX_BATCH_SIZE", func() { t.BatchSize = 0 })
	zero("OUTBOX_LEASE", func() { t.Lease = 0 })
	zero("OUTBOX_MAX_ATTEMPTS", func() { t.MaxAttempts = 0 })
	zero("OUTBOX_BACKOFF_BASE", func() { t.BackoffBase = 0 })
	zero("OUTBOX_BACKOFF_MAX", func() { t.BackoffMax = 0 })
	zero("OUTBOX_PUBLISH_TIMEOUT", func() { t.PublishTimeout = 0 })
	return t
}
