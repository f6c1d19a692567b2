package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// windowLatency delays Redis's replies to the armed instance while a window
// trap waits: its add lands at once (the harness sees the job), but the
// instance learns of it, and so reaches markPublished, only this much later.
const windowLatency = 300 * time.Millisecond

// signalBuffer is a trap's subscription buffer: room for a burst of adds
// (a batch of hundreds) while the trap looks one up.
const signalBuffer = 4096

// Fault kinds the traps record (see doc.go for their params).
const (
	FaultWindowTrapMiss = "window-trap-miss"
	FaultPauseTrap      = history.FaultPauseTrap
	FaultPauseTrapMiss  = "pause-trap-miss"
)

// CrashWindow kills the slot's instance between a BullMQ add and its
// markPublished, then restarts it. A dispatcher with crash points crashes at
// after-enqueue on its nth batch; a black-box dispatcher is trapped from
// outside: when Redis shows a job created for an event the instance holds,
// its database link is blackholed, the process SIGKILLed, the link healed.
func (n *Nemesis) CrashWindow(ctx context.Context, slot string, nth int, deadline time.Duration) error {
	if n.caps.CrashPoints {
		return n.CrashAt(ctx, slot, "after-enqueue", nth, deadline)
	}
	_, err := n.trapWindow(ctx, slot, deadline, 0)
	return err
}

// TrapCrashes lands count window-trap crashes, each on the instance running
// longest (a restarted one may still be booting; so the kills go round the
// slots), re-arming after each miss on the next slot after the one that
// missed (an instance can lose every claim race for many seconds: SKIP
// LOCKED hands a batch to whichever instance polls first, and instances
// restarted one poll interval apart poll in the same phase, one always
// just behind), until count have landed or
// budget has passed; each try waits up to perTry. It stops early when a try
// saw no job created at all after earlier ones did (the workload is over). Every landed crash is a
// "window-trap" fault, every miss a "window-trap-miss". It returns how many
// landed. For black-box dispatchers; with crash points use CrashWindow.
func (n *Nemesis) TrapCrashes(ctx context.Context, count int, perTry, budget time.Duration) (int, error) {
	missed := ""
	landed, err := rearm(ctx, count, budget, func(left time.Duration) (tryResult, error) {
		slot := n.longestRunning()
		if missed != "" {
			slot = n.nextAfter(missed)
		}
		t, err := n.trapWindow(ctx, slot, min(perTry, left), starvedSignals)
		missed = ""
		if !t.landed {
			missed = slot
		}
		return t, err
	})
	if err != nil {
		return landed, err
	}
	n.Note("window_traps_landed", fmt.Sprintf("%d/%d", landed, count))
	return landed, nil
}

// rearm is the re-arm loop of every trap: it runs try, given the time left,
// until want tries have landed, budget has passed or ctx has ended. It stops
// early when a try saw no job created at all after earlier ones did: the
// workload is over (before the first job, instances may still boot). It
// returns how many tries landed, a try that landed and failed after
// included.
func rearm(ctx context.Context, want int, budget time.Duration, try func(left time.Duration) (tryResult, error)) (int, error) {
	end := time.Now().Add(budget)
	landed, created := 0, false
	for landed < want {
		left := time.Until(end)
		if left <= 0 || ctx.Err() != nil {
			break
		}
		t, err := try(left)
		if t.landed {
			landed++
		}
		switch {
		case err != nil:
			return landed, err
		case !t.landed && t.signals == 0 && created:
			return landed, nil
		}
		created = created || t.signals > 0
	}
	return landed, nil
}

// tryResult is what one armed try saw.
type tryResult struct {
	landed  bool
	signals int // creations seen while armed, by any instance
}

// starvedSignals is how many creations in a row, none of an event the armed
// instance holds, make a TrapCrashes try give up before its deadline: the
// instance is losing the claim races, and another slot is armed instead.
const starvedSignals = 40

// workloadPoll is how often a TrapCrashes try asks whether the workload is
// over.
const workloadPoll = 250 * time.Millisecond

// trapWindow arms slot for one window trap until deadline; with giveUpAfter
// above 0 it gives up once that many creations in a row were none of the
// instance's.
func (n *Nemesis) trapWindow(ctx context.Context, slot string, deadline time.Duration, giveUpAfter int) (tryResult, error) {
	if n.obs == nil {
		return tryResult{}, fmt.Errorf("window trap %s: no Redis observer to signal job creations", slot)
	}
	link := n.links[n.store+"/"+slot]
	a, err := n.arm(slot)
	if err != nil {
		return tryResult{}, fmt.Errorf("window trap %s: %w", slot, err)
	}
	defer a.sub.Close()
	tctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	hits := make(chan supervisor.Hit)
	m := newMatcher(n, slot, a.sub)
	m.giveUpAfter, m.giveUp = giveUpAfter, cancel
	go m.run(tctx, hits)
	if giveUpAfter > 0 {
		watched := m.watchWorkload(tctx)
		defer func() { <-watched }()
	}
	undelayed := false
	trap, err := n.sup.TrapWindow(tctx, slot, hits, func() (func() error, error) {
		id, err := link.Add(faultproxy.Blackhole{})
		// The instance is stopped, not yet killed: its sockets still take
		// the held replies, so the delay comes off at once. Removed after
		// the kill, toxiproxy can take many seconds (15 s seen) to take it
		// off the dead client's connection, and the link, the next trap on
		// the slot and the restarted instance's Redis replies all wait.
		undelayed = a.undelay() == nil
		return func() error { return link.Remove(id) }, err
	})
	cancel()
	res := tryResult{landed: trap.JobID != "", signals: m.wait()}
	switch {
	case undelayed:
	case res.landed:
		// Not removed before the kill: do it without holding up the next
		// trap; the link's next fault or heal waits for it.
		go func() { _ = a.undelay() }()
	default:
		if rmErr := a.undelay(); rmErr != nil && err == nil {
			return res, fmt.Errorf("window trap %s: remove the reply delay: %w", slot, rmErr)
		}
	}
	if err != nil && !res.landed && ctx.Err() == nil {
		n.recordMiss(FaultWindowTrapMiss, slot, a.instance, a.at, m.missReason(err, deadline), m)
		err = nil // a miss: re-armed by the caller
	}
	if err != nil {
		return res, err
	}
	if n.alive(slot) {
		return res, nil
	}
	return res, n.start(ctx, slot, n.slotEnv[slot])
}

// arming is one armed try on a slot: subscribed to the creation signal, its
// instance's Redis replies delayed by windowLatency (its add lands at once,
// it learns so only later). The caller closes sub and lifts the delay.
type arming struct {
	instance string    // the slot's instance when armed
	at       time.Time // when armed
	sub      *observe.Subscription
	redis    *faultproxy.Proxy // the slot's Redis link
	delay    string            // the latency fault's id on redis
}

func (n *Nemesis) arm(slot string) (*arming, error) {
	a := &arming{sub: n.obs.Subscribe(signalBuffer), at: time.Now().UTC(),
		instance: n.sup.Instances()[slot], redis: n.links["redis/"+slot]}
	id, err := a.redis.Add(faultproxy.Latency{Latency: windowLatency, Direction: faultproxy.Downstream})
	if err != nil {
		a.sub.Close()
		return nil, fmt.Errorf("delay redis replies: %w", err)
	}
	a.delay = id
	return a, nil
}

// undelay lifts the reply delay.
func (a *arming) undelay() error { return a.redis.Remove(a.delay) }

// missReason says why a try ended without a hit.
func (m *matcher) missReason(err error, deadline time.Duration) string {
	if m.over.Load() {
		return "the workload is over: every event is final, no job is left to create"
	}
	if m.starved {
		return fmt.Sprintf("the instance held none of the %d jobs created while armed (other instances won the claims): given up early", m.seen)
	}
	return missReason(err, deadline)
}

func missReason(err error, deadline time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no job of an event the instance holds showed up within %s", deadline)
	}
	return err.Error()
}

// recordMiss records a trap that was armed and did not land.
func (n *Nemesis) recordMiss(kind, slot, instance string, armed time.Time, reason string, m *matcher) {
	n.rec.StartFault(history.Fault{Kind: kind, Target: instance, Start: armed, End: time.Now().UTC(),
		Params: map[string]string{"slot": slot, "reason": reason, "signals": fmt.Sprint(m.seen),
			"not_held": fmt.Sprint(m.notHeld), "dropped": fmt.Sprint(m.sub.Dropped())}})
}

// matcher turns creation signals into hits: a job whose event the slot's
// current instance holds (claimed, still processing, locked by it). For a
// cursor without claims it polls the database for the slot's turn instead
// (turnHit) and only counts the signals.
type matcher struct {
	n       *Nemesis
	slot    string
	sub     *observe.Subscription
	seen    int // signals read; written by run, read after wait
	notHeld int
	done    chan struct{}
	// giveUpAfter, when above 0, is how many signals in a row not of the
	// instance's events end the try: run calls giveUp and sets starved.
	giveUpAfter int
	giveUp      context.CancelFunc
	starved     bool
	over        atomic.Bool // set by watchWorkload before it calls giveUp
}

// watchWorkload ends the try (giveUp) once the workload is over, and
// closes the returned channel when it returns (ctx ended).
func (m *matcher) watchWorkload(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(workloadPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if m.n.workloadOver(ctx) {
					m.over.Store(true)
					m.giveUp()
					return
				}
			}
		}
	}()
	return done
}

func newMatcher(n *Nemesis, slot string, sub *observe.Subscription) *matcher {
	return &matcher{n: n, slot: slot, sub: sub, done: make(chan struct{})}
}

// run reads signals until ctx ends and offers the first match on hits.
func (m *matcher) run(ctx context.Context, hits chan<- supervisor.Hit) {
	defer close(m.done)
	var tick <-chan time.Time
	var turn turnWatch
	turns := m.n.turnsOnly()
	if turns {
		t := time.NewTicker(turnPoll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			hit, ok := m.turnHit(ctx, &turn)
			if !ok {
				continue
			}
			select {
			case hits <- hit:
				return
			case <-ctx.Done():
				return
			}
		case c, ok := <-m.sub.C:
			if !ok {
				return
			}
			m.seen++
			if turns {
				m.notHeld++ // counted only: the turn poll springs the trap
				continue
			}
			hit, ok := m.match(ctx, c)
			if !ok {
				m.notHeld++
				if m.giveUpAfter > 0 && m.notHeld == m.seen && m.seen >= m.giveUpAfter {
					m.starved = true
					m.giveUp()
					return
				}
				continue
			}
			select {
			case hits <- hit:
				return
			case <-ctx.Done():
				return
			}
		}
	}
}

// wait waits for run to end (its context is cancelled) and returns how
// many signals it read.
func (m *matcher) wait() int {
	<-m.done
	return m.seen
}

func (m *matcher) match(ctx context.Context, c observe.Creation) (supervisor.Hit, bool) {
	instance := m.n.sup.Instances()[m.slot]
	held := m.n.heldEvents(ctx, instance, c.Jobs())
	if !held.ok {
		return supervisor.Hit{}, false
	}
	return supervisor.Hit{Job: held.job, Params: hitParams(c, instance, held)}, true
}

func hitParams(c observe.Creation, instance string, held heldJob) map[string]string {
	p := map[string]string{
		"queue": c.Queue, "bull_id": c.JobID, "source": c.Source,
		history.TrapSeen: c.At.Format(time.RFC3339Nano), "matched": time.Now().UTC().Format(time.RFC3339Nano),
		"instance": instance,
	}
	if c.DataJobID != "" {
		p["data_job_id"] = c.DataJobID
	}
	if held.events == nil {
		p["held"] = "unknown: " + held.unknown
	} else {
		p["events"] = strings.Join(held.events, ",")
	}
	return p
}

// heldJob is what heldEvents found: the job (ok when one counts), the
// events instance holds for it, or, when nobody can tell (events nil), why.
type heldJob struct {
	job     string
	events  []string
	unknown string
	ok      bool
}

// heldEvents returns the first of jobs whose events instance holds
// (claimed now, and claimed by it) and those events' ids. Who claimed a row
// is its locked_by; for an outbox without one, the slot whose account wrote
// the row last (the history's writer: a dispatcher claims for itself).
// When nothing can tell (no claims in the model, slots sharing an account,
// or a database that would not answer), any job counts, events is nil and
// unknown says why.
func (n *Nemesis) heldEvents(ctx context.Context, instance string, jobs []string) heldJob {
	if len(jobs) == 0 || instance == "" {
		return heldJob{}
	}
	m := n.schema
	byOwner := m.Outbox.LockedBy != ""
	if !byOwner && (len(n.writers) == 0 || n.history == "") {
		return heldJob{job: jobs[0], unknown: "the mapping has no locked_by column and the history no writers", ok: true}
	}
	rows, err := n.claimedRows(ctx, jobs, instance, byOwner)
	if err != nil {
		return heldJob{job: jobs[0], unknown: err.Error(), ok: true}
	}
	var held string
	var events []string
	for _, r := range rows {
		if !byOwner && n.lastWriter(ctx, r.key) != slotOf(instance) {
			continue
		}
		if held == "" {
			held = r.job
		}
		if r.job == held {
			events = append(events, n.eventOfRow(r.key))
		}
	}
	return heldJob{job: held, events: events, ok: held != ""}
}

// claimedRow is an outbox row claimed now: its key as text and its job.
type claimedRow struct{ key, job string }

// claimedRows lists the claimed outbox rows of jobs, in key order (those
// whose locked_by is instance, when byOwner); an error says the model has
// no claims or the database would not answer.
func (n *Nemesis) claimedRows(ctx context.Context, jobs []string, instance string, byOwner bool) ([]claimedRow, error) {
	m, st, q := n.schema, model.Store{Dialect: n.dialect}, n.dialect.Quote
	args := make([]any, 0, len(jobs)+1)
	for _, j := range jobs {
		args = append(args, j)
	}
	job := st.JobExpr(m)
	where := fmt.Sprintf("%s IN (%s)", job, st.Placeholders(1, len(jobs)))
	if !m.HasJobs() {
		// the sink's id of a message may be its own id, not the payload's
		where = fmt.Sprintf("(%s OR %s IN (%s))", where, st.MessageExpr(m), st.Placeholders(len(args)+1, len(jobs)))
		for _, j := range jobs {
			args = append(args, model.MessageKey(m, j))
		}
	}
	if byOwner {
		where += fmt.Sprintf(" AND %s = %s", q(m.Outbox.LockedBy), st.Placeholders(len(args)+1, 1))
		args = append(args, instance)
	}
	claimed, claimArgs, hasClaims, err := st.ClaimedWhere(m, len(args)+1)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the claimed state's SQL: %w", err)
	case !hasClaims:
		return nil, fmt.Errorf("the outbox has no claimed state")
	}
	query := fmt.Sprintf("SELECT %s, %s FROM %s WHERE %s AND %s ORDER BY %s",
		st.KeyExpr(m), job, q(m.Outbox.Table), where, claimed, q(m.Outbox.ID))
	rs, err := n.db.QueryContext(ctx, query, append(args, claimArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("read the claimed rows: %w", err)
	}
	defer rs.Close()
	var out []claimedRow
	for rs.Next() {
		var r claimedRow
		if err := rs.Scan(&r.key, &r.job); err != nil {
			return nil, fmt.Errorf("read the claimed rows: %w", err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read the claimed rows: %w", err)
	}
	return out, nil
}

// lastWriter is the slot whose account last wrote the outbox row with key,
// as the history's triggers recorded it ("" when unknown).
func (n *Nemesis) lastWriter(ctx context.Context, key string) string {
	st := model.Store{Dialect: n.dialect}
	q := fmt.Sprintf("SELECT writer FROM %s WHERE tbl = %s AND row_id = %s ORDER BY seq DESC LIMIT 1",
		n.history, st.Placeholders(1, 1), st.Placeholders(2, 1))
	var user string
	if err := n.db.QueryRowContext(ctx, q, history.TableOutbox, key).Scan(&user); err != nil {
		return ""
	}
	return n.writers[user]
}

// eventOfRow is the event id of the outbox row with key: the key itself,
// or the id of the event recorded with it as its Row.
func (n *Nemesis) eventOfRow(key string) string {
	if m := n.schema; m.Outbox.IDType == schema.KeyAuto {
		return key
	}
	id := key
	n.rec.Update(func(run *history.Run) {
		for _, e := range run.Events {
			if e.Row == key {
				id = strconv.FormatInt(e.ID, 10)
				return
			}
		}
	})
	return id
}

// longestRunning is the slot whose live instance started first (the first
// slot when none is alive).
func (n *Nemesis) longestRunning() string {
	best, bestAt := n.slots[0], time.Time{}
	for _, slot := range n.slots {
		p, ok := n.sup.Current(slot)
		if !ok || !p.Alive() {
			continue
		}
		if bestAt.IsZero() || p.Started.Before(bestAt) {
			best, bestAt = slot, p.Started
		}
	}
	return best
}

// nextAfter is the first slot after missed, in slot order and round again,
// whose instance is alive (missed itself when no other is).
func (n *Nemesis) nextAfter(missed string) string {
	at := slices.Index(n.slots, missed)
	for i := 1; i < len(n.slots); i++ {
		slot := n.slots[(at+i)%len(n.slots)]
		if p, ok := n.sup.Current(slot); ok && p.Alive() {
			return slot
		}
	}
	return missed
}

// slotOf is the slot of instance id: the supervisor names a slot's later
// starts <slot>r<n>.
func slotOf(id string) string {
	if i := strings.LastIndex(id, "r"); i > 0 && i+1 < len(id) && strings.Trim(id[i+1:], "0123456789") == "" {
		return id[:i]
	}
	return id
}
