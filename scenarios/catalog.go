package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
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
		lostReplyRedis(), lostReplyMySQLCommit(), poison(), gracefulShutdown(),
		dedupeHorizon(), redisRestart(), Random(),
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

// Get returns the named scenario, or an error listing the names there are.
func Get(name string) (runner.Scenario, error) {
	for _, s := range All() {
		if s.Name == name {
			return s, nil
		}
	}
	return runner.Scenario{}, fmt.Errorf("unknown scenario %q: choose one of %s (see `outboxchaos list`)", name, strings.Join(Names(), ", "))
}

func base(name, desc string, instances, events int) runner.Scenario {
	return runner.Scenario{
		Name: name, Description: desc, Instances: instances, Events: events, Rate: 200,
		Mix: mostlyValid, Tuning: runner.DefaultTuning(), Consumer: true,
		Params: map[string]string{"instances": fmt.Sprint(instances), "events": fmt.Sprint(events)},
	}
}

func baseline() runner.Scenario {
	return base("baseline", "two instances, no faults: every valid event published once, every poison event failed", 2, 400)
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
	s.Params["consumer_leaves_rows"] = "true"
	crashes := 8
	s.Params["crashes"] = fmt.Sprint(crashes)
	s.Schedule = func(ctx context.Context, n *runner.Nemesis) error {
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
	points := []string{"after-claim", "after-enqueue", "before-finalize-commit", "after-finalize-commit"}
	s.Params["points"] = strings.Join(points, ",")
	s.Schedule = func(ctx context.Context, n *runner.Nemesis) error {
		for round := 0; round < 2; round++ {
			for _, p := range points {
				if err := n.CrashAt(ctx, n.Pick(), p, 1+n.Rand().Intn(2), 5*time.Second); err != nil {
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
	s.Tuning.BatchSize = 20
	s.Tuning.PollInterval = history.Duration(10 * time.Millisecond)
	return s
}

func leaseExpiry() runner.Scenario {
	s := base("lease-expiry", "instances die holding claims (a crash right after the claim, or SIGKILL mid-load): the claims are recovered after the lease", 3, 600)
	s.Rate = 150
	s.Schedule = func(ctx context.Context, n *runner.Nemesis) error {
		for i := 0; i < 4; i++ {
			var err error
			if n.HasCrashPoints() {
				err = n.CrashAt(ctx, n.Pick(), "after-claim", 1+n.Rand().Intn(2), 5*time.Second)
			} else {
				// From outside: a SIGKILL under load usually finds claims held.
				err = n.Kill(ctx, n.Pick(), 300*time.Millisecond)
			}
			if err != nil {
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
// out. A dispatcher without crash points is paused from outside by the
// pause trap (SIGSTOP when its add shows in Redis, before its finalize).
func zombie() runner.Scenario {
	s := base("zombie", "owners pause past their lease after an add and inside a finalize; others take over; the zombies must be fenced out", 3, 800)
	s.Rate = 100
	lease := s.Tuning.Lease.D()
	s.Schedule = func(ctx context.Context, n *runner.Nemesis) error {
		if n.HasCrashPoints() {
			return both(ctx,
				func(ctx context.Context) error {
					return n.PauseAt(ctx, "d1", "after-enqueue", 2, lease*5/2, lease)
				},
				func(ctx context.Context) error {
					return n.PauseAt(ctx, "d2", "before-finalize-commit", 2, lease*3/2, lease)
				})
		}
		// From outside: each pause springs when the instance's add shows
		// in Redis while it holds the claim, before its finalize.
		return both(ctx,
			func(ctx context.Context) error {
				_, err := n.PauseTrap(ctx, "d1", lease*5/2, lease, 20*time.Second)
				return err
			},
			func(ctx context.Context) error {
				_, err := n.PauseTrap(ctx, "d2", lease*3/2, lease, 20*time.Second)
				return err
			})
	}
	return s
}

// both runs two schedule steps at once and returns the first error.
func both(ctx context.Context, a, b func(context.Context) error) error {
	errs := make(chan error, 2)
	go func() { errs <- a(ctx) }()
	go func() { errs <- b(ctx) }()
	return errors.Join(<-errs, <-errs)
}

func networkOnce(dep string, f faultproxy.Fault, d time.Duration, perSlot bool) func(context.Context, *runner.Nemesis) error {
	return func(ctx context.Context, n *runner.Nemesis) error {
		if err := n.Sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
		if !perSlot {
			return n.Network(ctx, dep, "", f, d)
		}
		for _, slot := range n.Slots() {
			if err := n.Network(ctx, dep, slot, f, d); err != nil {
				return err
			}
		}
		return nil
	}
}

func redisLatency() runner.Scenario {
	s := base("redis-latency", "150 ms (+-50 ms) on every Redis link for 4 s: slower, never wrong", 2, 400)
	s.Schedule = networkOnce("redis", faultproxy.Fault{Kind: faultproxy.Latency, Latency: 150 * time.Millisecond, Jitter: 50 * time.Millisecond}, 4*time.Second, false)
	return s
}

func redisOutage() runner.Scenario {
	s := base("redis-outage", "Redis unreachable for 6 s, longer than the retry budget: backoff grows, events in flight end failed at max attempts", 2, 400)
	s.Tuning.MaxAttempts = 4
	// Every add waits out the publish timeout while Redis is down (the
	// client retries refused dials until its deadline): keep it short so
	// events reach max attempts inside the outage.
	s.Tuning.PublishTimeout = history.Duration(200 * time.Millisecond)
	s.Tuning.BackoffBase = history.Duration(100 * time.Millisecond)
	s.Tuning.BackoffMax = history.Duration(time.Second)
	s.Waived = map[string]string{"I2": "the outage is longer than the retry budget on purpose: events claimed during it must end failed (I7), not published"}
	s.Schedule = networkOnce("redis", faultproxy.Fault{Kind: faultproxy.Down}, 6*time.Second, false)
	return s
}

func mysqlLatency() runner.Scenario {
	s := base("mysql-latency", "100 ms (+-30 ms) on every MySQL link for 4 s", 2, 400)
	s.Schedule = networkOnce("mysql", faultproxy.Fault{Kind: faultproxy.Latency, Latency: 100 * time.Millisecond, Jitter: 30 * time.Millisecond}, 4*time.Second, false)
	return s
}

func mysqlOutage() runner.Scenario {
	s := base("mysql-outage", "MySQL unreachable for 3 s: claims stall, unfinished claims are recovered after the lease", 2, 400)
	s.Schedule = networkOnce("mysql", faultproxy.Fault{Kind: faultproxy.Down}, 3*time.Second, false)
	return s
}

func lostReplyRedis() runner.Scenario {
	s := base("lost-reply-redis", "a BullMQ add reaches Redis but its reply is lost: the retry must not make a second job", 2, 400)
	s.Schedule = networkOnce("redis", faultproxy.Fault{Kind: faultproxy.LostReplyRedisAdd}, 3*time.Second, true)
	return s
}

func lostReplyMySQLCommit() runner.Scenario {
	s := base("lost-reply-mysql-commit", "a COMMIT reaches MySQL but its reply is lost: the dispatcher must not assume either outcome", 2, 400)
	s.Schedule = networkOnce("mysql", faultproxy.Fault{Kind: faultproxy.LostReplyMySQLCommit}, 3*time.Second, true)
	return s
}

func poison() runner.Scenario {
	s := base("poison", "half the events are poison of every kind: each fails at once with its reason and no job", 2, 400)
	s.Mix = workload.Mix{Valid: 50, UnknownType: 10, MissingJob: 10, QueueDenied: 10, IllegalJobID: 10, AlreadyQueued: 10}
	return s
}

func gracefulShutdown() runner.Scenario {
	s := base("graceful-shutdown", "each instance in turn gets SIGTERM mid-load: it releases what it holds and exits 0", 3, 600)
	s.Needs = []runner.Needs{runner.NeedGracefulTerm}
	s.Schedule = func(ctx context.Context, n *runner.Nemesis) error {
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
	s.Params["remove_on_complete"] = "true"
	return s
}

func redisRestart() runner.Scenario {
	s := base("redis-restart", "Redis is killed and restarted on the same port mid-load (with persistence)", 2, 500)
	s.Needs = []runner.Needs{runner.NeedServerCtl}
	s.Schedule = func(ctx context.Context, n *runner.Nemesis) error {
		if err := n.Sleep(ctx, time.Second); err != nil {
			return err
		}
		return n.RestartServer(ctx, "redis", time.Second)
	}
	return s
}
