package runner

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// contractEnv is the environment of docs/contract.md §3 for one slot, with
// MySQL and Redis reached through the slot's fault-proxy links, as the
// slot's own MySQL user when it has one (createSlotUsers).
func (r *session) contractEnv(slot string) (map[string]string, error) {
	vars, err := r.dbs.slotVars(slot, r.links[r.dbs.store().Name()+"/"+slot].Addr())
	if err != nil {
		return nil, err
	}
	t := r.o.Scenario.Tuning
	maps.Copy(vars, map[string]string{
		"OUTBOX_REDIS_URL":       env.RedisURL(r.o.Env, r.links["redis/"+slot].Addr()),
		"OUTBOX_QUEUES":          strings.Join(r.queues, ","),
		"OUTBOX_BULL_PREFIX":     r.prefix,
		"OUTBOX_POLL_INTERVAL":   t.PollInterval.D().String(),
		"OUTBOX_BATCH_SIZE":      fmt.Sprint(t.BatchSize),
		"OUTBOX_LEASE":           t.Lease.D().String(),
		"OUTBOX_MAX_ATTEMPTS":    fmt.Sprint(t.MaxAttempts),
		"OUTBOX_BACKOFF_BASE":    t.BackoffBase.D().String(),
		"OUTBOX_BACKOFF_MAX":     t.BackoffMax.D().String(),
		"OUTBOX_PUBLISH_TIMEOUT": t.PublishTimeout.D().String(),
	})
	if r.o.Adapter.Capabilities().Durability == supervisor.DurabilityWait {
		vars[supervisor.EnvRedisReplicas] = "1" // Missing: the environment runs one
	}
	if z := r.o.Scenario.Zones; !z.IsZero() {
		vars["TZ"] = z.Process // the instances' own zone (zones.go)
	}
	return vars, nil
}

// recordCommands turns on the fault proxy's command log for the run's job
// ids (needle): every command an instance sends through its Redis link
// naming one of them, every failed command, and every statement that
// failed on its MySQL link, goes to the history.
func (r *session) recordCommands(needle string) error {
	if r.proxy == nil {
		return nil
	}
	err := r.proxy.RecordCommands(faultproxy.CommandLog{Needle: needle, Record: func(c faultproxy.Command) {
		dep, slot, _ := strings.Cut(c.Link, "/")
		store := ""
		if dep != "redis" {
			store = dep // a failed statement on the instance's store link
		}
		r.rec.AddCommand(history.Command{Slot: slot, Store: store, Name: c.Name, Jobs: c.Jobs, Write: c.Write, Sent: c.Sent,
			Outcome: c.Outcome, Reply: c.Reply, Replied: c.Replied})
	}})
	if err != nil {
		return fmt.Errorf("fault proxy: %w", err)
	}
	r.rec.Update(func(run *history.Run) { run.Meta.Commands = true })
	return nil
}

// load commits the workload while the schedule drives the nemesis.
func (r *session) load(ctx context.Context) error {
	s := r.o.Scenario
	runID := randomHex(3)
	if err := r.recordCommands(workload.JobIDPrefix(runID)); err != nil {
		return err
	}
	p, err := r.producer(workload.ProducerConfig{
		DB: r.db, Schema: r.o.Adapter.Schema(), Dialect: r.dbs.store().Dialect(), Queues: r.queues, Rate: s.Rate, Mix: s.Mix,
		Rand: randFrom(r.rng), Recorder: r.rec, RunID: runID, Aggregates: s.Aggregates, Hold: s.Hold,
	})
	if err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	r.log("load: %d events at %s, schedule running", s.Events, rateText(s.Rate))
	errs := make(chan error, 2)
	go func() { errs <- p.Produce(ctx, s.Events) }()
	go func() {
		if s.Script == nil {
			errs <- nil
			return
		}
		errs <- s.Script(ctx, r.nem)
	}()
	stop := r.ticker(ctx, "load")
	defer stop()
	var first error
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// heal removes every fault and makes sure every slot has a live instance.
func (r *session) heal(ctx context.Context) error {
	if err := r.proxy.HealAll(); err != nil {
		return fmt.Errorf("heal proxy: %w", err)
	}
	if err := r.nem.Revive(ctx); err != nil {
		return err
	}
	now := time.Now().UTC()
	r.rec.Update(func(run *history.Run) {
		run.Meta.Healed = now
		for i := range run.Faults {
			if run.Faults[i].End.IsZero() {
				run.Faults[i].End = now
			}
		}
	})
	r.log("heal: faults removed, %d instances alive", len(r.nem.Slots()))
	return nil
}

// drain waits until no event is pending or processing, or the budget ends.
// A dispatcher still working through its backlog when the budget ends is
// given more time (drainWatch): "eventually published" is judged on a
// dispatcher that stopped moving, not on a slow one cut short.
func (r *session) drain(ctx context.Context) error {
	budget := r.o.Scenario.drainBudget()
	r.log("drain: up to %s", budget.Round(time.Second))
	stop := r.ticker(ctx, "drain")
	defer stop()
	w := newDrainWatch(time.Now(), budget, r.o.Scenario.stallWindow())
	quietPolls := 0
	for quietPolls < 3 {
		open, err := r.openEvents(ctx)
		if err != nil {
			return err
		}
		more, extended := w.observe(time.Now(), open)
		if !more {
			break
		}
		if extended {
			r.log("drain: %d events still open and falling: waiting while they fall (at most %s more)", open, drainCap)
		}
		if open == 0 && r.queuesIdle(ctx) {
			quietPolls++
		} else {
			quietPolls = 0
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	quiet := quietPolls >= 3
	r.rec.Update(func(run *history.Run) { run.Meta.Quiesced = quiet })
	if !quiet {
		r.log("drain: deadline reached with events still open")
	}
	return nil
}

// drainCap is how much longer than its budget a drain waits on a
// dispatcher still making progress.
const drainCap = 2 * time.Minute

// drainWatch decides when a drain gives up: at its deadline, unless the
// count of open events fell within the last stall window; then it waits on
// while the count keeps falling, up to drainCap past the deadline.
type drainWatch struct {
	deadline, hardEnd, lastFall time.Time
	stall                       time.Duration
	fewest                      int
	extended                    bool
}

func newDrainWatch(start time.Time, budget, stall time.Duration) *drainWatch {
	return &drainWatch{deadline: start.Add(budget), hardEnd: start.Add(budget + drainCap), lastFall: start, stall: stall, fewest: -1}
}

// observe takes the open count seen at now; more says whether to go on,
// extended is true the first time it goes on past the deadline.
func (w *drainWatch) observe(now time.Time, open int) (more, extended bool) {
	if w.fewest < 0 || open < w.fewest {
		w.fewest, w.lastFall = open, now
	}
	if !now.After(w.deadline) {
		return true, false
	}
	if now.After(w.hardEnd) || now.Sub(w.lastFall) > w.stall {
		return false, false
	}
	extended = !w.extended
	w.extended = true
	return true, extended
}

func (r *session) queuesIdle(ctx context.Context) bool {
	if !r.o.Scenario.Consumer {
		return true
	}
	if r.sink != nil {
		return r.sink.idle(ctx)
	}
	for _, q := range r.queues {
		n, err := r.rdb.LLen(ctx, r.prefix+":"+q+":wait").Result()
		if err != nil || n > 0 {
			return false
		}
		n, err = r.rdb.LLen(ctx, r.prefix+":"+q+":active").Result()
		if err != nil || n > 0 {
			return false
		}
	}
	return true
}

// openEvents counts events neither published nor failed yet.
func (r *session) openEvents(ctx context.Context) (int, error) {
	m := r.o.Adapter.Schema()
	d := r.dbs.store().Dialect()
	where, args, err := model.Store{Dialect: d}.OpenWhere(m, 1)
	if err != nil {
		return 0, fmt.Errorf("count open events: %w", err)
	}
	var n int
	if err := r.db.QueryRowContext(ctx, fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s", d.Quote(m.Outbox.Table), where), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count open events: %w", err)
	}
	return n, nil
}

// progress counts the events produced so far that are in a final state
// (an outbox that deletes published rows keeps no count of its own).
func (r *session) progress(ctx context.Context) (done, total int, err error) {
	open, err := r.openEvents(ctx)
	if err != nil {
		return 0, 0, err
	}
	total = r.rec.EventCount()
	return max(total-open, 0), total, nil
}

// finish stops the instances, reads the history, writes it into the run
// folder and checks it; it returns the history as stored and the results.
func (r *session) finish(ctx context.Context) (history.Run, []check.Result, error) {
	r.stopInstances()
	r.stopBg()
	if err := <-r.bgDone; err != nil && ctx.Err() == nil {
		r.log("consumer: %v", err)
	}
	if err := r.stopObserver(); err != nil {
		return history.Run{}, nil, fmt.Errorf("stop redis observer: %w", err)
	}
	trans, final, err := r.readHistory(ctx)
	if err != nil {
		return history.Run{}, nil, err
	}
	if r.proxy != nil && r.proxy.CommandsLost() > 0 {
		r.rec.AddGap(history.Gap{Source: history.GapCommands, At: time.Now().UTC(),
			Detail: fmt.Sprintf("the fault proxy's command log kept its bound and lost %d records", r.proxy.CommandsLost())})
	}
	now := time.Now().UTC()
	r.rec.Update(func(run *history.Run) {
		run.Transitions = trans
		run.Final = final
		run.Meta.Ended = now
	})
	// The run is redacted once, here: what is checked is what the folder
	// stores, so `outboxchaos report` re-checks the very same history.
	h := history.Redact(r.rec.Snapshot())
	if err := history.Write(r.o.Out, h); err != nil {
		return history.Run{}, nil, err
	}
	return h, check.Evaluate(h), nil
}

func (r *session) stopInstances() {
	graceful := r.o.Adapter.Capabilities().GracefulTerm
	for _, slot := range r.sup.Alive() {
		if graceful {
			if _, err := r.sup.Term(slot, 10*time.Second); err == nil {
				continue
			}
		}
		_ = r.sup.Kill(slot)
	}
}

// ticker prints progress every few seconds until stopped.
func (r *session) ticker(ctx context.Context, phase string) func() {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(3 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				d, n, err := r.progress(ctx)
				if err == nil {
					r.log("%s: %d/%d events final, faults active: %s", phase, d, n, r.activeFaults())
				}
			}
		}
	}()
	return func() { close(done) }
}

func (r *session) activeFaults() string {
	var active []string
	r.rec.Update(func(run *history.Run) {
		for _, f := range run.Faults {
			if f.End.IsZero() {
				active = append(active, f.Kind+" "+f.Target)
			}
		}
	})
	if len(active) == 0 {
		return "none"
	}
	return strings.Join(active, ", ")
}

func rateText(rate float64) string {
	if rate <= 0 {
		return "full speed"
	}
	return fmt.Sprintf("%.0f/s", rate)
}
