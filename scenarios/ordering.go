package scenarios

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// ordering is the opt-in scenario for a dispatcher that declares
// ordering: per-aggregate: six valid events for each of 40 aggregates,
// committed round-robin (the payload names the aggregate,
// {"jobId": "<id>", "aggregate": "a-<run>-<k>"}; every event of an
// aggregate goes to one queue), while the last queue refuses every add for
// 1.5 s, within the retry budget. Events of that queue fail and back off;
// a later event of the same aggregate must wait for the earlier one
// (MassTransit #3512, gruelbox/transaction-outbox #198: a retried message
// overtaken after its backoff). I10 judges the order; a dispatcher that
// does not declare it is skipped, since the contract's schema has one
// event per job and promises no order.
func ordering() runner.Scenario {
	s := base("ordering", "six events per aggregate, 40 aggregates, while one queue refuses adds for 1.5 s: a retried event is never overtaken by a later one of its aggregate (opt-in: ordering: per-aggregate)", 3, 240)
	s.Rate = 80
	s.Mix = workload.Mix{Valid: 1}
	s.Aggregates = 40
	s.Needs = []runner.Needs{runner.NeedOrdering}
	s.Exercises = []string{"I10"}
	s.Tuning.MaxAttempts = 10
	s.Tuning.BackoffMax = history.Duration(time.Second)
	s.Params["aggregates"] = fmt.Sprint(s.Aggregates)
	// The refused adds must land, and some of them on an event with a
	// later one of its aggregate already committed, to be overtaken.
	s.Landing = []history.Requirement{
		{Fault: history.LandQueueError, AtLeast: 3},
		{Fault: history.LandOrderRetry, AtLeast: 3},
	}
	s.Script = after(300*time.Millisecond, breakLastQueue(param(&s, "broken_for", 1500*time.Millisecond)))
	return s
}
