package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// script is a scenario's fault schedule (runner.Scenario.Script).
type script = func(ctx context.Context, n *nemesis.Nemesis) error

// after is the schedule that lets the load run for d, then runs step.
func after(d time.Duration, step script) script {
	return func(ctx context.Context, n *nemesis.Nemesis) error {
		if err := n.Sleep(ctx, d); err != nil {
			return err
		}
		return step(ctx, n)
	}
}

// both runs two schedule steps at once and returns their errors joined.
func both(ctx context.Context, a, b func(context.Context) error) error {
	errs := make(chan error, 2)
	go func() { errs <- a(ctx) }()
	go func() { errs <- b(ctx) }()
	return errors.Join(<-errs, <-errs)
}

// crashAny crashes a drawn instance at point on one of its next hits of it
// (the 1st up to the within-th, drawn), waiting up to 5 s for that hit.
func crashAny(ctx context.Context, n *nemesis.Nemesis, point contract.CrashPoint, within int) error {
	return n.CrashAt(ctx, n.Pick(), point, 1+n.Rand().Intn(within), 5*time.Second)
}

// link says which of a dependency's proxied links a network fault takes.
type link int

const (
	allLinks link = iota // one fault on every instance's link at once
	eachLink             // the fault on each instance's link in turn
)

// networkOnce is the schedule of one network fault f on dep for d, half a
// second into the load.
func networkOnce(dep string, f faultproxy.Fault, d time.Duration, on link) script {
	return after(500*time.Millisecond, func(ctx context.Context, n *nemesis.Nemesis) error {
		if on == allLinks {
			return n.Network(ctx, dep, "", f, d)
		}
		for _, slot := range n.Slots() {
			if err := n.Network(ctx, dep, slot, f, d); err != nil {
				return err
			}
		}
		return nil
	})
}

// breakLastQueue breaks the last queue of the allowlist for d (Redis
// refuses every add to it) while the others flow, and notes which queue it
// was (broken_queue) in the run's parameters.
func breakLastQueue(d time.Duration) script {
	return func(ctx context.Context, n *nemesis.Nemesis) error {
		qs := n.Queues()
		q := qs[len(qs)-1]
		n.Note("broken_queue", q)
		return n.BreakQueue(ctx, q, d)
	}
}

// param shows v as the scenario's parameter key and returns it, so that the
// value the schedule uses and the one the report shows are written once.
func param[T any](s *runner.Scenario, key string, v T) T {
	s.Params[key] = fmt.Sprint(v)
	return v
}
