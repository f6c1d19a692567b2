package check

import (
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// brokenQueueFailed tells whether a valid event is expected to end failed
// because its queue was broken (a queue-error fault) for its whole attempt
// budget: it ended failed, and each of its attempts ended (in a transient
// failure, or the final failed) inside a queue-error window on its queue,
// widened by the publish timeout and ClockSlack. Redis refused every add it
// could make, so I2 does not require it published; I6 and I7 judge how it
// was retried and failed.
func (ix *index) brokenQueueFailed(e history.Event) bool {
	if row, ok := ix.finalOutbox[e.ID]; !ok || row.Status != history.StatusFailed {
		return false
	}
	ends := 0
	moves := ix.moves[e.ID]
	for i, t := range ix.outbox[e.ID] {
		m := moves[i]
		if m != moveFailure && !(m == moveFinalize && t.NewStatus == history.StatusFailed) {
			continue
		}
		ends++
		if !ix.queueBrokenAt(e.Queue, t) {
			return false
		}
	}
	return ends > 0
}

func (ix *index) queueBrokenAt(queue string, t history.Transition) bool {
	tail := ix.run.Meta.Tuning.PublishTimeout.D() + ClockSlack
	for _, f := range ix.run.Faults {
		if f.Kind != "queue-error" || f.Params["queue"] != queue {
			continue
		}
		if !t.At.Before(f.Start.Add(-ClockSlack)) && !t.At.After(faultEnd(ix.run, f).Add(tail)) {
			return true
		}
	}
	return false
}
