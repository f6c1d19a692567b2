package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// An at-least-once relay on BullMQ carries the message id as the jobId. A
// re-publish under that same id (here after the consumer removed the job)
// is a duplicate the consumer drops, counted; a re-publish under another
// jobId (node-pgtimes' new-id-on-republish) is the message under two ids,
// which I1 fails, as it does for a stream's or a list's message id field.
func TestAtLeastOnceOnBullMQReadsTheJobIDAsTheMessageID(t *testing.T) {
	for name, c := range map[string]struct {
		second string
		want   Verdict
	}{"same jobId": {"job-1", Pass}, "another jobId": {"0b58142c-dfd0-4f9e-a940-418646826aa0", Fail}} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder("crash-window").start(0, "d1", "d2")
			b.produce(1, "job-1", history.KindValid, 100).claim(1, "d1", 200).add("ai-default", "job-1", "job-1", 250)
			b.take("ai-default", "job-1", "w1", 300, true)
			b.proc("d1", "kill", 320)
			b.takeover(1, "d2", 2400).add("ai-default", c.second, "job-1", 2450).publish(1, 2500)
			run := b.finish(3000, 4000, true)
			run.Meta.Model.Delivery = history.DeliveryAtLeastOnce
			r := Check(I1, run)
			require.Equal(t, c.want, r.Verdict, r.Reason)
			if c.want == Pass {
				require.Equal(t, 1, r.Duplicates, "the re-add under the same id is counted")
				return
			}
			require.Contains(t, r.Violations[0].Summary, "under another message id ("+c.second+")")
		})
	}
}
