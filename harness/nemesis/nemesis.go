package nemesis

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Nemesis is what a scenario's schedule drives: process signals, crash
// points, network faults and server restarts. Every action is recorded in the
// history as a fault window with a start and an end.
type Nemesis struct {
	sup      *supervisor.Supervisor
	links    map[string]*faultproxy.Proxy // "mysql/d1" (the store's), "redis/d1"
	env      env.Env
	rec      *history.Recorder
	draws    *draws
	slots    []string
	slotEnv  map[string]map[string]string
	caps     supervisor.Capabilities
	db       *sql.DB        // direct, for the window trap's look-ups
	obs      CreationSource // the traps' creation signal; nil: none
	schema   schema.Mapping
	progress func(ctx context.Context) (done, total int, err error)
	planned  int    // events the workload writes (Config.Planned)
	prefix   string // the BullMQ key prefix of the run
	sink     string // where the dispatcher publishes (history.Sink*)
	store    string // the outbox's database: "mysql" or "postgres"
	dialect  model.Dialect
	history  string            // the history table, quoted; "" when unknown
	writers  map[string]string // the history's accounts -> slots
	queues   []string          // the run's queue allowlist
	// storeRestart: RestartServer may restart the store in place.
	storeRestart bool
	readOnly     func(ctx context.Context, on bool) error // Config.ReadOnly
}

// Store is the dependency the run's database links are named after, its
// store: "mysql" or "postgres". A schedule's network fault on the database
// names it.
func (n *Nemesis) Store() string { return n.store }

// Queues lists the run's queues (the allowlist), in order.
func (n *Nemesis) Queues() []string { return append([]string(nil), n.queues...) }

// Rand is the run's seeded randomness, for schedule choices.
func (n *Nemesis) Rand() *rand.Rand { return n.draws.rng }

// HasCrashPoints says whether the adapter exposes crash points, so a
// schedule can pause or crash at an exact place instead of from outside.
func (n *Nemesis) HasCrashPoints() bool { return n.caps.CrashPoints }

// CanRestartStore says whether the environment can SIGKILL the store's
// server and restart it in place with its data, so a generated schedule
// may draw that restart.
func (n *Nemesis) CanRestartStore() bool { return n.storeRestart }

// Note records a parameter of the run, shown in results.json and on the
// report: a schedule drawn at run time, say. Safe to call from a schedule.
func (n *Nemesis) Note(key, value string) {
	n.rec.Update(func(run *history.Run) {
		if run.Meta.Params == nil {
			run.Meta.Params = map[string]string{}
		}
		run.Meta.Params[key] = value
	})
}

// Slots lists the instance slots ("d1", "d2", ...).
func (n *Nemesis) Slots() []string { return append([]string(nil), n.slots...) }

// Pick returns a slot chosen with the run's randomness.
func (n *Nemesis) Pick() string { return n.slots[n.draws.rng.Intn(len(n.slots))] }

// Sleep waits d or until ctx ends (then its error).
func (n *Nemesis) Sleep(ctx context.Context, d time.Duration) error { return sleep.For(ctx, d) }

func (n *Nemesis) window(kind, target string, params map[string]string) func() {
	id := n.rec.StartFault(history.Fault{Kind: kind, Target: target, Params: params, Start: time.Now().UTC()})
	return func() { n.rec.EndFault(id, time.Now().UTC()) }
}

// Kill SIGKILLs the slot's instance and restarts it after down.
func (n *Nemesis) Kill(ctx context.Context, slot string, down time.Duration) error {
	end := n.window("kill", slot, map[string]string{"down": down.String()})
	defer end()
	if err := n.sup.Kill(slot); err != nil {
		return fmt.Errorf("kill %s: %w", slot, err)
	}
	if err := n.Sleep(ctx, down); err != nil {
		return err
	}
	return n.start(ctx, slot, n.slotEnv[slot])
}

// Pause SIGSTOPs the slot's instance for d, then SIGCONTs it.
func (n *Nemesis) Pause(ctx context.Context, slot string, d time.Duration) error {
	end := n.window(history.FaultPause, slot, map[string]string{"for": d.String()})
	defer end()
	if err := n.sup.Pause(slot); err != nil {
		return fmt.Errorf("pause %s: %w", slot, err)
	}
	sleepErr := n.Sleep(ctx, d)
	if err := n.sup.Resume(slot); err != nil {
		return fmt.Errorf("resume %s: %w", slot, err)
	}
	return sleepErr
}

// Term asks the slot's instance to stop gracefully and restarts it after down.
// An instance that does not exit within timeout is killed; the fault says so.
func (n *Nemesis) Term(ctx context.Context, slot string, timeout, down time.Duration) error {
	end := n.window("term", slot, map[string]string{"timeout": timeout.String()})
	defer end()
	if _, err := n.sup.Term(slot, timeout); err != nil {
		return fmt.Errorf("term %s: %w", slot, err)
	}
	if err := n.Sleep(ctx, down); err != nil {
		return err
	}
	return n.start(ctx, slot, n.slotEnv[slot])
}

// CrashAt restarts the slot with a failpoint that crashes it at the named
// point on its nth hit, waits for the crash (or the deadline), then restarts
// it clean. It needs an adapter with crash points.
func (n *Nemesis) CrashAt(ctx context.Context, slot string, point contract.CrashPoint, nth int, deadline time.Duration) error {
	if !n.caps.CrashPoints {
		return fmt.Errorf("crash at %s: the adapter exposes no crash points", point)
	}
	vars, err := supervisor.FailpointVars(n.draws.seedFor(slot+"/crash/"+string(point)), supervisor.Crash(point).OnNth(nth))
	if err != nil {
		return fmt.Errorf("crash at %s: %w", point, err)
	}
	end := n.window("crash-point", slot, map[string]string{"point": string(point), "nth": fmt.Sprint(nth)})
	defer end()
	if err := n.restartArmed(ctx, slot, vars); err != nil {
		return fmt.Errorf("crash at %s: %w", point, err)
	}
	if !n.waitCrash(ctx, slot, deadline) {
		// The point was not reached in time (say, no work left): stop the
		// armed instance so the restart below runs clean.
		if err := n.sup.Kill(slot); err != nil && n.alive(slot) {
			return fmt.Errorf("crash at %s: stop armed %s: %w", point, slot, err)
		}
	}
	return n.start(ctx, slot, n.slotEnv[slot])
}

// Pause names one pause of an instance, for PauseAt and PauseTrap.
type Pause struct {
	Slot string // the instance's slot: d1, d2, ...
	// Point and OnHit place a PauseAt: the crash point, and which hit of
	// it sleeps (1 = the first). PauseTrap springs on an add seen in Redis
	// instead and takes neither.
	Point contract.CrashPoint
	OnHit int
	For   time.Duration // how long the instance stays paused
	// Settle is how long the schedule waits after the pause, while the
	// sleeper wakes and finishes (a lease is enough).
	Settle time.Duration
	// While, when set, runs as soon as a PauseTrap has stopped the
	// instance (mysql-restart restarts the server there), inside the
	// pause: the instance wakes For after it stopped, or when While ends
	// if that is later. PauseAt takes none.
	While func(ctx context.Context) error
}

// PauseAt restarts p.Slot with a failpoint that makes it sleep for p.For at
// p.Point on its p.OnHit-th hit (a pause at an exact place in its protocol,
// past its lease when p.For is longer), and keeps the schedule here until
// the sleeper has had time to wake and finish: p.For plus p.Settle. The
// fault window covers that span. It needs an adapter with crash points.
func (n *Nemesis) PauseAt(ctx context.Context, p Pause) error {
	slot, point, nth, d, settle := p.Slot, p.Point, p.OnHit, p.For, p.Settle
	if !n.caps.CrashPoints {
		return fmt.Errorf("pause at %s: the adapter exposes no crash points", point)
	}
	if p.While != nil {
		return fmt.Errorf("pause at %s: While is run by a pause trap only (the sleeper's own timer ends a PauseAt)", point)
	}
	if nth < 1 || d <= 0 {
		return fmt.Errorf("pause at %s: OnHit must be 1 or more and For positive (got %d, %s)", point, nth, d)
	}
	vars, err := supervisor.FailpointVars(n.draws.seedFor(slot+"/pause/"+string(point)), supervisor.SleepAt(point, d).OnNth(nth))
	if err != nil {
		return fmt.Errorf("pause at %s: %w", point, err)
	}
	end := n.window("pause-at", slot, map[string]string{"point": string(point), "nth": fmt.Sprint(nth), "for": d.String()})
	defer end()
	if err := n.restartArmed(ctx, slot, vars); err != nil {
		return fmt.Errorf("pause at %s: %w", point, err)
	}
	return n.Sleep(ctx, d+settle)
}

// restartArmed stops the slot's instance (stopForRearm) and starts it again
// with the failpoint's vars added to its environment.
func (n *Nemesis) restartArmed(ctx context.Context, slot string, vars map[string]string) error {
	env := cloneMap(n.slotEnv[slot])
	for k, v := range vars {
		env[k] = v
	}
	if err := n.stopForRearm(slot); err != nil {
		return fmt.Errorf("stop %s: %w", slot, err)
	}
	return n.start(ctx, slot, env)
}

// stopForRearm stops the slot's instance so it can be started again with a
// failpoint armed: gracefully when the adapter says SIGTERM is graceful (so
// the only crash is the armed one), else with SIGKILL.
func (n *Nemesis) stopForRearm(slot string) error {
	if n.caps.GracefulTerm {
		if _, err := n.sup.Term(slot, 10*time.Second); err == nil || !n.alive(slot) {
			return nil
		}
	}
	return n.sup.Kill(slot)
}

func (n *Nemesis) waitCrash(ctx context.Context, slot string, deadline time.Duration) bool {
	t := time.NewTimer(deadline)
	defer t.Stop()
	for {
		select {
		case ev := <-n.sup.CrashPoints():
			if ev.Slot == slot {
				return true
			}
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// Network applies a network fault to one dependency (the store, Store(),
// or "redis") on one slot's link, or on every slot's link when slot is "",
// for d. A fault that depends on the run's sink or store is bound to it
// first (bind), and recorded as bound.
func (n *Nemesis) Network(ctx context.Context, dep, slot string, f faultproxy.Fault, d time.Duration) error {
	finish, err := n.addNetwork(dep, slot, f, d)
	if err != nil {
		return err
	}
	defer finish()
	return n.Sleep(ctx, d)
}

// addNetwork starts Network's fault and its record at once; finish removes
// it and records what its toxics counted and its end. On an error nothing
// is left on the links, and the record (if started) is ended.
func (n *Nemesis) addNetwork(dep, slot string, f faultproxy.Fault, d time.Duration) (finish func(), err error) {
	links, err := n.linksFor(dep, slot)
	if err != nil {
		return nil, err
	}
	target := n.depName(dep)
	if slot != "" {
		// The link belongs to the slot; the checkers know instances by the
		// id they write into locked_by.
		target = n.depName(dep) + "/" + n.sup.Instances()[slot]
	}
	if f == nil {
		return nil, fmt.Errorf("network fault on %s: no fault given", dep)
	}
	f = n.bind(f)
	params := f.Params()
	params["for"] = d.String()
	id := n.rec.StartFault(history.Fault{Kind: string(f.Kind()), Target: target, Params: params, Start: time.Now().UTC()})
	type added struct {
		p  *faultproxy.Proxy
		id string
	}
	var ids []added
	finish = func() {
		// What the toxics counted (fired; refused, answered), summed over
		// the links, goes into the fault's record.
		counts := map[string]int{}
		for _, a := range ids {
			if tally, err := a.p.Tally(a.id); err == nil {
				for k, v := range tally {
					counts[k] += v
				}
			}
			_ = a.p.Remove(a.id)
		}
		n.rec.Update(func(run *history.Run) {
			for k, v := range counts {
				run.Faults[id-1].Params[k] = fmt.Sprint(v)
			}
		})
		n.rec.EndFault(id, time.Now().UTC())
	}
	for _, p := range links {
		aid, err := p.Add(f)
		if err != nil {
			finish()
			return nil, fmt.Errorf("network fault %s on %s: %w", f.Kind(), p.Name(), err)
		}
		ids = append(ids, added{p, aid})
	}
	return finish, nil
}

// bind hands a fault the run's sink (SinkBound) and store (StoreBound).
func (n *Nemesis) bind(f faultproxy.Fault) faultproxy.Fault {
	if sb, ok := f.(faultproxy.SinkBound); ok {
		f = sb.OnSink(n.sink)
	}
	if sb, ok := f.(faultproxy.StoreBound); ok {
		f = sb.OnStore(n.store)
	}
	return f
}

func (n *Nemesis) linksFor(dep, slot string) ([]*faultproxy.Proxy, error) {
	if dep != "mysql" && dep != n.store && dep != "redis" {
		return nil, fmt.Errorf("network fault: dependency %q: want mysql (the outbox's database) or redis", dep)
	}
	dep = n.depName(dep)
	var out []*faultproxy.Proxy
	for _, s := range n.slots {
		if slot == "" || slot == s {
			out = append(out, n.links[dep+"/"+s])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("network fault: no slot %q", slot)
	}
	return out, nil
}

// BreakQueue makes Redis refuse, on every slot's link, each command that
// writes a key of queue (its adds) with an error reply, for d; reads and
// other queues work. The fault's params record the queue, and at its end
// how many commands were refused and answered with the error.
func (n *Nemesis) BreakQueue(ctx context.Context, queue string, d time.Duration) error {
	return n.Network(ctx, "redis", "", faultproxy.QueueError{Queue: queue, Prefix: n.prefix}, d)
}

// RestartServer kills a server ("mysql" or "redis"), keeps it down for down,
// and starts it again on the same port. It needs an environment with server
// control.
func (n *Nemesis) RestartServer(ctx context.Context, dep string, down time.Duration) error {
	var c env.Control
	switch dep = n.depName(dep); dep {
	case "mysql":
		c = n.env.MySQL()
	case "postgres":
		pg, err := n.env.Postgres(ctx)
		if err != nil {
			return fmt.Errorf("restart server postgres: %w", err)
		}
		c = pg.Control()
	case "redis":
		c = n.env.Redis()
	default:
		return fmt.Errorf("restart server: %q: want mysql (the outbox's database) or redis", dep)
	}
	if c == nil {
		return fmt.Errorf("restart server %s: the %s environment cannot restart servers", dep, n.env.Name())
	}
	return n.restartServer(ctx, dep, c, down, func() {})
}

// restartServer SIGKILLs the server c controls, calls killed, and starts it
// again after down, inside a server-restart window.
func (n *Nemesis) restartServer(ctx context.Context, dep string, c env.Control, down time.Duration, killed func()) error {
	end := n.window("server-restart", dep, map[string]string{"down": down.String()})
	defer end()
	if err := c.Kill(); err != nil {
		return fmt.Errorf("restart server %s: kill: %w", dep, err)
	}
	killed()
	sleepErr := n.Sleep(ctx, down)
	startCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
	defer cancel()
	if err := c.Start(startCtx); err != nil {
		return fmt.Errorf("restart server %s: start: %w", dep, err)
	}
	return sleepErr
}

// WaitProgress waits until at least frac of the produced events reached a
// final state, or d passes. It returns whether the fraction was reached.
func (n *Nemesis) WaitProgress(ctx context.Context, frac float64, d time.Duration) (bool, error) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		done, total, err := n.progress(ctx)
		if err != nil {
			return false, err
		}
		if total > 0 && float64(done) >= frac*float64(total) {
			return true, nil
		}
		if err := n.Sleep(ctx, 100*time.Millisecond); err != nil {
			return false, err
		}
	}
	return false, nil
}

// workloadOver says whether every planned event was written and is final:
// no job is left to create. False when it cannot tell.
func (n *Nemesis) workloadOver(ctx context.Context) bool {
	if n.progress == nil || n.planned <= 0 {
		return false
	}
	done, total, err := n.progress(ctx)
	return err == nil && total >= n.planned && done >= total
}

func (n *Nemesis) start(ctx context.Context, slot string, env map[string]string) error {
	if _, err := n.sup.Start(ctx, slot, env); err != nil {
		return fmt.Errorf("start %s: %w", slot, err)
	}
	return nil
}

func (n *Nemesis) alive(slot string) bool {
	for _, s := range n.sup.Alive() {
		if s == slot {
			return true
		}
	}
	return false
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// depName is the dependency a schedule names, as the run has it: "mysql"
// means the outbox's database, whichever store it is.
func (n *Nemesis) depName(dep string) string {
	if dep == "mysql" {
		return n.store
	}
	return dep
}
