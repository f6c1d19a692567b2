package scenarios

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// mostlyValid is the default mix: valid events with a sprinkle of every
// poison kind and of already-dispatched jobs.
var mostlyValid = workload.Mix{Valid: 90, UnknownType: 2, MissingJob: 2, QueueDenied: 2, IllegalJobID: 2, AlreadyQueued: 2}

// All returns the catalog in a stable order.
func All() []runner.Scenario {
	list := []runner.Scenario{
		baseline(), crashWindow(), crashPoints(), contention(), leaseExpiry(), zombie(),
		redisLatency(), redisOutage(), mysqlLatency(), mysqlOutage(),
		queueError(), lostReplyRedis(), lostReplyMySQLCommit(), poison(), gracefulShutdown(),
		dedupeHorizon(), redisRestart(), clockSkew(), ordering(),
		commitOrderGaps(), lockConflicts(), mysqlRestart(), transientStates(), failureWrite(), halfOpen(), timeZones(), wholeSeconds(), redisLosesAdds(), Random(),
	}
	return list
}

// Names lists every scenario name in catalog order.
func Names() []string {
	var out []string
	for _, s := range All() {
		out = append(out, s.Name)
	}
	return out
}

// Long returns the long scenarios, which only `make chaos-long` runs (each
// by name): outages longer than any retry budget, against the dispatcher's
// own default tuning. They are not in All, so `make chaos` and the sharded
// catalog never pay for them.
func Long() []runner.Scenario {
	return []runner.Scenario{
		longOutage("redis", 30*time.Second), longOutage("redis", 2*time.Minute),
		longOutage("mysql", 30*time.Second), longOutage("mysql", 2*time.Minute),
	}
}

// LongNames lists the long scenarios' names, for `make chaos-long`.
func LongNames() []string {
	var out []string
	for _, s := range Long() {
		out = append(out, s.Name)
	}
	return out
}

// Get returns the named scenario, from the catalog or the long list, or an
// error listing the names there are.
func Get(name string) (runner.Scenario, error) {
	for _, s := range append(All(), Long()...) {
		if s.Name == name {
			return s, nil
		}
	}
	return runner.Scenario{}, fmt.Errorf("unknown scenario %q: choose one of %s, or a long one: %s (see `outboxchaos list`)",
		name, strings.Join(Names(), ", "), strings.Join(LongNames(), ", "))
}

// Select returns the named scenarios, catalog ones in catalog order and
// then long ones in their order, each once; no names selects the whole
// catalog (All). An unknown name is Get's error, listing the names there are.
func Select(names ...string) ([]runner.Scenario, error) {
	if len(names) == 0 {
		return All(), nil
	}
	want := map[string]bool{}
	for _, n := range names {
		if _, err := Get(n); err != nil {
			return nil, err
		}
		want[n] = true
	}
	var out []runner.Scenario
	for _, s := range append(All(), Long()...) {
		if want[s.Name] {
			out = append(out, s)
		}
	}
	return out, nil
}

func base(name, desc string, instances, events int) runner.Scenario {
	return runner.Scenario{
		Name: name, Description: desc, Instances: instances, Events: events, Rate: 200,
		Mix: mostlyValid, Tuning: runner.DefaultTuning(), Consumer: true,
		Params: map[string]string{},
	}
}

func baseline() runner.Scenario {
	s := base("baseline", "two instances, no faults: every valid event published once, every poison event failed", 2, 400)
	s.Exercises = []string{"I1", "I2", "I4"}
	return s
}

// crashWindow is the seed's required test, repeated: the job is added, the
// dispatcher dies before markPublished, a restart follows, the same jobId makes
// no second job, the event ends published.
func crashWindow() runner.Scenario {
	s := base("crash-window", "SIGKILL between the BullMQ add and markPublished, many times on different instances", 3, 800)
	s.Rate = 100 // keep events flowing while the crashes (or window traps) come one by one
	// The consumer completes jobs but leaves the jobs rows alone, so the
	// re-dispatch finds the job still created: only the jobId stops a
	// second job (with rows moved on, the dispatcher would skip the add).
	s.ConsumerLeavesRows = true
	s.Exercises = []string{"I1"}
	crashes := param(&s, "crashes", 8)
	// A crash outside the window proves nothing about step 8.
	s.Landing = []history.Requirement{{Fault: history.LandCrashWindow, AtLeast: 6, Planned: crashes}}
	s.Script = func(ctx context.Context, n *nemesis.Nemesis) error {
		if !n.HasCrashPoints() {
			// From outside: re-armed until every planned crash landed.
			_, err := n.TrapCrashes(ctx, crashes, 5*time.Second, 60*time.Second)
			return err
		}
		for i := 0; i < crashes; i++ {
			slot := n.Pick()
			if err := n.CrashWindow(ctx, slot, 1+n.Rand().Intn(3), 5*time.Second); err != nil {
				return err
			}
		}
		return nil
	}
	return s
}

// crashPoints crashes instances at every named point of the protocol in
// turn: after the claim, after the add, inside the finalize before COMMIT,
// and right after the COMMIT.
func crashPoints() runner.Scenario {
	s := base("crash-points", "SIGKILL at each crash point in turn (after-claim, after-enqueue, before- and after-finalize-commit), twice", 3, 800)
	s.Rate = 100
	s.Needs = []runner.Needs{runner.NeedCrashPoints}
	s.ConsumerLeavesRows = true
	// after-enqueue re-adds (I1); after-claim leaves dead owners' claims to
	// recover (I8).
	s.Exercises = []string{"I1", "I8"}
	points := contract.CrashPointNames()
	s.Params["points"] = strings.Join(points, ",")
	// after-enqueue and before-finalize-commit (twice each) crash inside
	// the add->finalize window; all but after-finalize-commit leave claims
	// of a dead owner.
	s.Landing = []history.Requirement{
		{Fault: history.LandCrashWindow, AtLeast: 3},
		{Fault: history.LandDeadOwner, AtLeast: 4},
	}
	s.Script = func(ctx context.Context, n *nemesis.Nemesis) error {
		for round := 0; round < 2; round++ {
			for _, p := range points {
				if err := crashAny(ctx, n, contract.CrashPoint(p), 2); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return s
}

func contention() runner.Scenario {
	s := base("contention", "six instances on one table at full speed: no event claimed twice", 6, 3000)
	s.Rate = 0
	s.Exercises = []string{"I5"}
	s.Tuning.BatchSize = 20
	s.Tuning.PollInterval = history.Duration(10 * time.Millisecond)
	return s
}

func leaseExpiry() runner.Scenario {
	s := base("lease-expiry", "instances die holding claims (a crash right after the claim; from outside, a SIGKILL while their add is held in the window): the claims are recovered after the lease", 3, 600)
	s.Rate = 150
	s.Exercises = []string{"I8"}
	s.Landing = []history.Requirement{{Fault: history.LandDeadOwner, AtLeast: 2}}
	kills := 4
	s.Script = func(ctx context.Context, n *nemesis.Nemesis) error {
		if !n.HasCrashPoints() {
			// From outside: a random SIGKILL often finds a fast dispatcher
			// holding nothing, so the window trap kills each instance when
			// Redis shows the add of an event it holds: it dies holding
			// that claim, unfinished.
			_, err := n.TrapCrashes(ctx, kills, 5*time.Second, 30*time.Second)
			return err
		}
		for i := 0; i < kills; i++ {
			if err := crashAny(ctx, n, contract.AfterClaim, 2); err != nil {
				return err
			}
			if err := n.Sleep(ctx, 300*time.Millisecond); err != nil {
				return err
			}
		}
		return nil
	}
	return s
}

// zombie pauses owners past their lease at the worst places: right after an
// add (d1), and inside a finalize holding its row locks (d2). Others recover
// and finalize the claims meanwhile; the sleepers wake and must be fenced
// out. A dispatcher without crash points is reached from outside: d1 by the
// pause trap (SIGSTOP when its add shows in Redis, before its finalize), d2
// by the finalize trap (its next COMMIT after that add held back past its
// lease, so the finalize's row locks outlive the lease, as a pause at
// before-finalize-commit does).
func zombie() runner.Scenario {
	s := base("zombie", "owners pause past their lease after an add and inside a finalize; others take over; the zombies must be fenced out", 3, 800)
	s.Rate = 100
	// Owners paused past their lease must be fenced out when they wake (I5).
	// Not I8: a pause at a crash point holds the process inside its own
	// code, so the history shows a live owner finishing late, not a dead one.
	s.Exercises = []string{"I5"}
	lease := s.Tuning.Lease.D()
	s.Landing = []history.Requirement{
		{Fault: history.LandZombie, AtLeast: 1, Planned: 2},
		// A recovery that rewrites rows by id meets a finalize only while
		// it is open; a black box's finalize is open that long only when
		// the trap held it.
		{Fault: history.LandFinalizeHeld, AtLeast: 1, BlackBox: true},
	}
	// d1 sleeps right after an add, d2 inside a finalize holding its row
	// locks, each on its 2nd batch.
	afterAdd := nemesis.Pause{Slot: "d1", Point: contract.AfterEnqueue, OnHit: 2, For: lease * 5 / 2, Settle: lease}
	// The finalize stays open 7/4 of a lease, so at least 3/4 of a lease
	// past its lease end however soon after the claim it began: room for
	// the others' recovery, which waits a margin after the lease end and
	// then comes round in its loop, to meet it on a loaded machine. The
	// black box's landing asks for a poll and a quarter lease past it
	// (check.heldFinalizes); a dispatcher that times its statements out
	// at the lease ends the hold sooner, and still lands.
	inFinalize := nemesis.Pause{Slot: "d2", Point: contract.BeforeFinalizeCommit, OnHit: 2, For: lease * 7 / 4, Settle: lease}
	s.Script = func(ctx context.Context, n *nemesis.Nemesis) error {
		if n.HasCrashPoints() {
			return both(ctx,
				func(ctx context.Context) error { return n.PauseAt(ctx, afterAdd) },
				func(ctx context.Context) error { return n.PauseAt(ctx, inFinalize) })
		}
		// From outside: each trap springs when the instance's add shows
		// in Redis while it holds the claim, before its finalize.
		const deadline = 20 * time.Second
		return both(ctx,
			func(ctx context.Context) error {
				trap := nemesis.Pause{Slot: afterAdd.Slot, For: afterAdd.For, Settle: afterAdd.Settle}
				_, err := n.PauseTrap(ctx, trap, deadline)
				return err
			},
			func(ctx context.Context) error {
				_, err := n.FinalizeTrap(ctx, inFinalize.Slot, inFinalize.For, inFinalize.Settle, deadline)
				return err
			})
	}
	return s
}

func redisLatency() runner.Scenario {
	return latency("redis-latency", "150 ms (+-50 ms) on every Redis link for 4 s: slower, never wrong", "redis", 150*time.Millisecond, 50*time.Millisecond)
}

func mysqlLatency() runner.Scenario {
	return latency("mysql-latency", "100 ms (+-30 ms) on every link to the outbox's database (MySQL, or PostgreSQL) for 4 s", "mysql", 100*time.Millisecond, 30*time.Millisecond)
}

// latency slows every link to dep by lat (+- jitter) for 4 s.
func latency(name, desc, dep string, lat, jitter time.Duration) runner.Scenario {
	s := base(name, desc, 2, 400)
	s.Script = networkOnce(dep, faultproxy.Latency{Latency: lat, Jitter: jitter}, 4*time.Second, allLinks)
	return s
}

// redisOutage takes Redis away for longer than the retry budget. Two
// behaviours are legitimate, and the scenario tells them apart:
//   - a dispatcher that counts every failed add as an attempt backs off and
//     dead-letters what it claimed during the outage at max attempts: I7
//     checks that it stops there, and I2 is waived for it, because those
//     events are failed, not published;
//   - a dispatcher that tells "Redis answered nothing" from "Redis refused
//     this event" (the reference: a breaker, doc.go "Dependency health")
//     stops claiming, gives back what it holds and resumes when Redis
//     answers: every valid event ends published, so I2 passes although it
//     is waived, and results.json shows "valid events failed: 0".
//
// The second is the better one: an outage is not the events' fault, and
// every event the first dead-letters needs a person to replay it. The waiver
// stays so that the first is still judged on what it promises (bounded
// attempts) rather than failed for an outage longer than its budget.
func redisOutage() runner.Scenario {
	s := base("redis-outage", "Redis unreachable for 6 s, longer than the retry budget: a dispatcher that spends attempts on it fails its events at max attempts (I7, I2 waived); better, one that stops claiming while Redis answers nothing publishes every valid event", 2, 400)
	s.Tuning.MaxAttempts = 4
	// Every add waits out the publish timeout while Redis is down (the
	// client retries refused dials until its deadline): keep it short so
	// events reach max attempts inside the outage.
	s.Tuning.PublishTimeout = history.Duration(200 * time.Millisecond)
	s.Tuning.BackoffBase = history.Duration(100 * time.Millisecond)
	s.Tuning.BackoffMax = history.Duration(time.Second)
	s.Waived = map[string]string{"I2": "the outage is longer than the retry budget on purpose: a dispatcher that spends attempts on it must end the events it claimed during it failed (I7), not published; one that holds back while Redis answers nothing (the better behaviour, the reference's) publishes them all and passes I2 anyway"}
	// No Exercises: a dispatcher that holds back while Redis answers nothing
	// (the reference) has no transient failure here; backoff and bounded
	// attempts are exercised for every dispatcher by queue-error.
	s.Script = networkOnce("redis", faultproxy.Down{}, 6*time.Second, allLinks)
	// The outage must hold events up: failed inside it, or held back by it
	// (the reference claims nothing while Redis answers nothing). Backoff
	// and bounded attempts are queue-error's to exercise.
	s.Landing = []history.Requirement{{Fault: history.LandOutageStalled, Target: "redis", AtLeast: 5}}
	return s
}

// queueError breaks the last queue of the allowlist: Redis answers every
// write to its keys (the adds) with an error reply for longer than the
// retry budget, while the other queue flows. Unlike an outage it cannot be
// waited out or queued by a client, so every dispatcher meets transient
// failures: backoff between attempts (I6), failed at max attempts (I7).
// Expected failed, so not required published by I2: the valid events of the
// broken queue each of whose attempts ended while the queue was broken (in
// practice those claimed during the break); every other valid event, those
// of the other queue and those of the broken one claimed before the break
// or retried after it, must be published.
func queueError() runner.Scenario {
	s := base("queue-error", "Redis refuses every add to one queue with an error reply for 6 s, longer than the retry budget, while the other queue flows: backoff grows, its events end failed at max attempts", 2, 400)
	s.Tuning.MaxAttempts = 4
	s.Tuning.BackoffBase = history.Duration(100 * time.Millisecond)
	s.Tuning.BackoffMax = history.Duration(time.Second)
	s.Landing = []history.Requirement{{Fault: history.LandQueueError, AtLeast: 10}}
	s.Script = after(500*time.Millisecond, breakLastQueue(param(&s, "broken_for", 6*time.Second)))
	return s
}

func mysqlOutage() runner.Scenario {
	s := base("mysql-outage", "the outbox's database (MySQL, or PostgreSQL for store: postgres) unreachable for 3 s: claims stall, unfinished claims are recovered after the lease; every valid event ends published", 2, 400)
	s.Script = networkOnce("mysql", faultproxy.Down{}, 3*time.Second, allLinks)
	s.Landing = []history.Requirement{{Fault: history.LandOutageStalled, Target: "mysql", AtLeast: 5}}
	return s
}

func lostReplyRedis() runner.Scenario {
	return lostReply("lost-reply-redis", "a BullMQ add reaches Redis but its reply is lost: the retry must not make a second job",
		"redis", faultproxy.LostReplyRedisAdd{}, "I1")
}

func lostReplyMySQLCommit() runner.Scenario {
	return lostReply("lost-reply-mysql-commit", "a COMMIT reaches the outbox's database (MySQL, or PostgreSQL) but its reply is lost: the dispatcher must not assume either outcome",
		"mysql", faultproxy.LostReplyMySQLCommit{}, "I1", "I3")
}

// lostReply drops one reply (fault) on dep's link of each instance in turn,
// for up to 3 s each: one lost reply planned per instance.
func lostReply(name, desc, dep string, fault faultproxy.Fault, exercises ...string) runner.Scenario {
	s := base(name, desc, 2, 400)
	s.Exercises = exercises
	s.Script = networkOnce(dep, fault, 3*time.Second, eachLink)
	s.Landing = []history.Requirement{{Fault: history.LandLostReply, AtLeast: 1, Planned: s.Instances}}
	return s
}

func poison() runner.Scenario {
	s := base("poison", "half the events are poison of every kind: each fails at once with its reason and no job", 2, 400)
	s.Mix = workload.Mix{Valid: 50, UnknownType: 10, MissingJob: 10, QueueDenied: 10, IllegalJobID: 10, AlreadyQueued: 10}
	s.Exercises = []string{"I4"}
	return s
}

func gracefulShutdown() runner.Scenario {
	s := base("graceful-shutdown", "each instance in turn gets SIGTERM mid-load: it releases what it holds and exits 0", 3, 600)
	s.Needs = []runner.Needs{runner.NeedGracefulTerm}
	s.Script = func(ctx context.Context, n *nemesis.Nemesis) error {
		for _, slot := range n.Slots() {
			if err := n.Sleep(ctx, 400*time.Millisecond); err != nil {
				return err
			}
			if err := n.Term(ctx, slot, 10*time.Second, 200*time.Millisecond); err != nil {
				return err
			}
		}
		return nil
	}
	return s
}

func dedupeHorizon() runner.Scenario {
	s := crashWindow()
	s.Name = "dedupe-horizon"
	s.Description = "the consumer removes completed jobs (removeOnComplete), then a crash window re-adds: BullMQ's jobId dedupe is gone"
	s.RemoveOnComplete = true
	return s
}

func redisRestart() runner.Scenario {
	s := base("redis-restart", "Redis is killed and restarted on the same port mid-load (with persistence)", 2, 500)
	s.Needs = []runner.Needs{runner.NeedServerCtl}
	s.Script = after(time.Second, func(ctx context.Context, n *nemesis.Nemesis) error {
		return n.RestartServer(ctx, "redis", time.Second)
	})
	s.Landing = []history.Requirement{{Fault: history.LandOutageStalled, Target: "redis", AtLeast: 1}}
	return s
}

// longOutage takes dep away for d, longer than any retry budget, with the
// dispatcher's default tuning (the reference's production defaults): the
// reference must end with every valid event published and each job run
// once, because it spends no attempt while a dependency answers nothing.
// Nothing is waived.
func longOutage(dep string, d time.Duration) runner.Scenario {
	label := fmt.Sprintf("%gs", d.Seconds())
	if d >= time.Minute {
		label = fmt.Sprintf("%gm", d.Minutes())
	}
	s := base(dep+"-outage-"+label, fmt.Sprintf("%s unreachable for %s with the default tuning, longer than any retry budget: every valid event still ends published (chaos-long only)", strings.ToUpper(dep[:1])+dep[1:], d), 2, 400)
	s.Tuning = referenceDefaults()
	s.Drain = d/2 + 2*time.Minute // the lease (30s) runs out for claims MySQL could not release, then the backlog drains
	s.Script = networkOnce(dep, faultproxy.Down{}, param(&s, "outage", d), allLinks)
	return s
}

// referenceDefaults is the reference dispatcher's default tuning
// (reference.DefaultConfig after WithDerived; the harness links no
// dispatcher, so catalog_test.go checks this copy against the reference).
func referenceDefaults() history.Tuning {
	return history.Tuning{
		PollInterval:   history.Duration(100 * time.Millisecond),
		BatchSize:      100,
		Lease:          history.Duration(30 * time.Second),
		MaxAttempts:    10,
		BackoffBase:    history.Duration(time.Second),
		BackoffMax:     history.Duration(5 * time.Minute),
		PublishTimeout: history.Duration(5 * time.Second),
	}
}
