package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// At-least-once on BullMQ: a job's id is the message id a consumer drops
// duplicates by. Jobs under the message's own id pass, re-adds included; a
// job BullMQ's counter numbered carries no id of the message's and fails
// I1, even alone.
func TestAtLeastOnceBullMQJobsCarryTheMessageID(t *testing.T) {
	run := func(numbered bool) history.Run {
		b := newBuilder("baseline").start(0, "d1")
		b.produce(1, "job-1", history.KindValid, 10).produce(2, "job-2", history.KindValid, 10)
		b.claim(1, "d1", 100).add("ai-default", "job-1", "job-1", 150).publish(1, 200)
		b.claim(2, "d1", 100)
		if numbered {
			b.addNumeric("ai-default", "job-2", 160)
		} else {
			b.add("ai-default", "job-2", "job-2", 160)
		}
		b.publish(2, 200)
		r := b.finish(1000, 2000, true)
		r.Meta.Model.Delivery = history.DeliveryAtLeastOnce
		return r
	}
	r := Check(I1, run(false))
	require.Equal(t, Pass, r.Verdict, r.Reason)
	r = Check(I1, run(true))
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Len(t, r.Violations, 1)
	require.Equal(t, "job-2", r.Violations[0].JobID)
	require.Contains(t, r.Violations[0].Summary, "under another message id (1)")
}
