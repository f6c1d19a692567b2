package reference_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

func TestPublishesValidEventsAndQueuesTheirJobs(t *testing.T) {
	e := newEnv(t)
	a := e.addValid("job-a")
	b := e.addEvent(reference.EventTypeEnqueue, "job-b", queueB, "created")
	d := e.dispatcher(e.Config("d1"))

	n, err := d.Poll(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, n)

	for _, c := range []struct {
		event int64
		job   string
		queue string
	}{{a, "job-a", queueA}, {b, "job-b", queueB}} {
		row := e.event(c.event)
		require.Equal(t, "published", row.Status)
		require.Equal(t, 1, row.Attempts)
		require.True(t, row.PublishedAt.Valid)
		require.Equal(t, "d1", row.LockedBy.String, "the finalized row keeps who finalized it")
		require.Len(t, row.LockToken.String, 32, "the finalized row keeps its token")
		require.False(t, row.LastError.Valid)
		require.Equal(t, "queued", e.JobStatus(c.job))

		data, err := e.Redis.HGet(context.Background(), jobKey(c.queue, c.job), "data").Result()
		require.NoError(t, err)
		var payload map[string]string
		require.NoError(t, json.Unmarshal([]byte(data), &payload))
		require.Equal(t, map[string]string{"jobId": c.job}, payload)
		require.Equal(t, []string{c.job}, e.waitList(c.queue))
	}
	// Claim and publish were each one transition, in that order.
	steps := e.audit(a)
	require.Len(t, steps, 2)
	require.Equal(t, []string{"pending", "processing"}, []string{steps[0].OldStatus, steps[0].NewStatus})
	require.Equal(t, []string{"processing", "published"}, []string{steps[1].OldStatus, steps[1].NewStatus})
	require.Equal(t, steps[0].NewToken, steps[1].NewToken, "the finalize is written under the claim's token")

	st := d.Stats()
	require.Equal(t, 2, st.Claimed)
	require.Equal(t, 2, st.Published[reference.HowAdded])
}

func TestPermanentFailuresFailAtOnceWithoutRedis(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		event  int64
		job    string
		queue  string
		reason string
	}{
		{"unknown type", e.addEvent("ai.job.cancel", "job-t", queueA, "created"), "job-t", queueA, reference.ReasonUnknownEventType},
		{"missing job", e.addEvent(reference.EventTypeEnqueue, "job-missing", queueA, ""), "job-missing", queueA, reference.ReasonJobNotFound},
		{"queue not allowed", e.addEvent(reference.EventTypeEnqueue, "job-q", "ai-secret", "created"), "job-q", "ai-secret", reference.ReasonQueueNotAllowed},
		{"all digits", e.addEvent(reference.EventTypeEnqueue, "12345", queueA, "created"), "12345", queueA, reference.ReasonIllegalJobID},
		{"colon", e.addEvent(reference.EventTypeEnqueue, "job:1", queueA, "created"), "job:1", queueA, reference.ReasonIllegalJobID},
	}
	valid := e.addValid("job-ok")
	d := e.dispatcher(e.Config("d1"))

	_, err := d.Poll(context.Background())
	require.NoError(t, err)

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			row := e.event(c.event)
			require.Equal(t, "failed", row.Status)
			require.Equal(t, 1, row.Attempts, "failed on the first attempt, no retry")
			require.True(t, strings.HasPrefix(row.LastError.String, c.reason+": "), "last_error %q", row.LastError.String)
			require.False(t, e.jobExists(c.queue, c.job), "no BullMQ job")
			for _, a := range e.audit(c.event) {
				require.NotEqual(t, "pending", a.NewStatus, "never put back to pending")
			}
		})
	}
	require.Equal(t, "published", e.event(valid).Status)
	require.Equal(t, 1, e.addCalls(queueA), "only the valid event reached Redis")
	require.Equal(t, 0, e.addCalls("ai-secret"))
	require.Equal(t, "created", e.JobStatus("job-q"), "a failed event leaves its job alone")

	// A second poll finds nothing: failed is final.
	n, err := d.Poll(context.Background())
	require.NoError(t, err)
	require.Zero(t, n)
	st := d.Stats()
	require.Equal(t, map[string]int{
		reference.ReasonUnknownEventType: 1, reference.ReasonJobNotFound: 1,
		reference.ReasonQueueNotAllowed: 1, reference.ReasonIllegalJobID: 2,
	}, st.Failed)
}

func TestJobPastCreatedIsPublishedWithNoAdd(t *testing.T) {
	e := newEnv(t)
	queued := e.addEvent(reference.EventTypeEnqueue, "job-q", queueA, "queued")
	running := e.addEvent(reference.EventTypeEnqueue, "job-r", queueA, "running")
	d := e.dispatcher(e.Config("d1"))

	_, err := d.Poll(context.Background())
	require.NoError(t, err)

	for _, id := range []int64{queued, running} {
		require.Equal(t, "published", e.event(id).Status)
	}
	require.False(t, e.jobExists(queueA, "job-q"))
	require.False(t, e.jobExists(queueA, "job-r"))
	require.Zero(t, e.addCalls(queueA), "no add at all")
	require.Equal(t, "running", e.JobStatus("job-r"), "a worker's state is never overwritten")
	require.Equal(t, 2, d.Stats().Published[reference.HowAlreadyDispatched])
}

// TestReAddAfterJobHashDeletedStaysANoOp: a consumer with removeOnComplete
// deleted the job hash; the event comes back (as after a crash between the
// add and the finalize, with the job still 'created'); the dispatcher adds
// again and the dedupe record keeps it a no-op.
func TestReAddAfterJobHashDeletedStaysANoOp(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.addValid("job-1")
	d := e.dispatcher(e.Config("d1"))
	_, err := d.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, "published", e.event(id).Status)

	// The consumer completes the job and removes it.
	require.NoError(t, e.Redis.Del(ctx, jobKey(queueA, "job-1")).Err())
	require.NoError(t, e.Redis.LRem(ctx, "bull:"+queueA+":wait", 0, "job-1").Err())
	// The event is back, its job still created.
	_, err = e.DB.Exec(`UPDATE outbox_events SET status = 'pending', lock_token = NULL, locked_by = NULL WHERE id = ?`, id)
	require.NoError(t, err)
	_, err = e.DB.Exec(`UPDATE ai_jobs SET status = 'created' WHERE id = 'job-1'`)
	require.NoError(t, err)

	n, err := d.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, "published", e.event(id).Status)
	require.False(t, e.jobExists(queueA, "job-1"), "no new job hash")
	require.Empty(t, e.waitList(queueA), "nothing pushed to wait again")
	require.Equal(t, 2, e.addCalls(queueA), "the add did reach Redis")
	require.Equal(t, 1, e.streamAdded(queueA, "job-1"), "BullMQ saw one creation only")
	require.Equal(t, 1, d.Stats().Published[reference.HowDeduped])
}
