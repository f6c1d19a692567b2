package reference

import (
	"context"
	"fmt"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

// lookBeforeFailing keeps the promise "never fail an event whose job may
// exist" (doc.go, "Before failing at max attempts"). Every valid event
// whose transient failure would now fail it at max attempts is looked up in
// Redis first, in one round trip: its job hash or dedupe record in its
// queue (every allowed queue when the queue is unknown). Found: it is
// published (how = found). No answer: it is given back, so the last attempt
// is not spent and nothing is decided. Any other error leaves it failing.
// Batches with no such event cost nothing.
func (d *Dispatcher) lookBeforeFailing(work context.Context, b *Batch, fates []fate) {
	lookups, at := selectFates(b, fates, func(e Event, f fate) bool {
		return f.kind == fateRetry && e.Attempts >= d.cfg.MaxAttempts && e.Type == EventTypeEnqueue
	}, func(e Event, f fate) bullmq.Lookup {
		return bullmq.Lookup{ID: e.JobID, Queues: d.queuesOf(f)}
	})
	if len(lookups) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(work, d.cfg.PublishTimeout)
	defer cancel()
	seen, err := d.producer.Seen(ctx, lookups)
	for k, i := range at {
		switch {
		case err != nil && heard(work, d.redisB, err):
			fates[i] = giveBack(fmt.Errorf("look for the job before failing it: %w", err))
		case err != nil:
			fates[i].text += "; could not look for its job: " + oneLine(err.Error())
		case seen[k]:
			fates[i] = publish(HowFound)
		}
	}
}

// queuesOf is where an event's job may be: the queue of its add, or every
// allowed queue when the failure came before the queue was known.
func (d *Dispatcher) queuesOf(f fate) []string {
	if f.queue != "" {
		return []string{f.queue}
	}
	return d.cfg.Queues
}
