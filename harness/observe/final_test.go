package observe_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

func TestScanFinalFindsAnIDPushedTwice(t *testing.T) {
	m := roomMapping()
	db := withSchema(t, m)
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	exec(t, db, "INSERT INTO room_jobs (job_key, target_queue, state) VALUES ('j1', 'q', 'sent'), ('j2', 'q', 'odd')")
	exec(t, db, `INSERT INTO room_outbox (topic, room_job, body, state, retry_count, error_message)
		VALUES ('ai.job.enqueue', 'j1', '{}', 'delivered', 2, NULL), ('ai.job.enqueue', 'j2', '{}', 'retryable', 1, 'boom')`)

	require.NoError(t, rdb.HSet(ctx, "bull:q:j1", "name", "ai-job", "data", `{"jobId":"j1"}`, "opts", "{}", "timestamp", "17").Err())
	require.NoError(t, rdb.LPush(ctx, "bull:q:wait", "j1", "j1").Err())
	require.NoError(t, rdb.ZAdd(ctx, "bull:q:completed", redisZ(1, "j0")).Err())
	require.NoError(t, rdb.HSet(ctx, "bull:q:7", "name", "ai-job", "data", `{"jobId":"j2"}`, "opts", "{}").Err())
	require.NoError(t, rdb.HSet(ctx, "bull:q:meta", "opts.maxLenEvents", "10000").Err())
	require.NoError(t, rdb.Set(ctx, "bull:q:id", "3", 0).Err())

	f, err := observe.ScanFinal(ctx, rdb, db, m, "bull", []string{"q", "empty"})
	require.NoError(t, err)
	q := f.Queues["q"]
	require.Equal(t, []string{"j1", "j1"}, q.Lists["wait"], "the id pushed twice is there twice")
	require.Equal(t, []string{"j0"}, q.Lists["completed"])
	require.Empty(t, q.Lists["active"])
	require.Len(t, q.Jobs, 2, "job hashes only: %v", q.Jobs)
	require.Equal(t, history.JobHash{Name: "ai-job", Data: `{"jobId":"j1"}`, Opts: "{}", DataJobID: "j1", Timestamp: "17"}, q.Jobs["j1"])
	require.Equal(t, "j2", q.Jobs["7"].DataJobID, "a numeric BullMQ id is matched by data.jobId")
	require.Empty(t, f.Queues["empty"].Jobs)

	require.Len(t, f.Outbox, 2)
	require.Equal(t, "published", f.Outbox[0].Status)
	require.Equal(t, 2, f.Outbox[0].Attempts)
	require.Equal(t, "pending", f.Outbox[1].Status, "retryable maps to pending")
	require.Equal(t, "boom", f.Outbox[1].LastError)
	require.Nil(t, f.Outbox[0].PublishedAt, "the mapping names no published_at")
	require.Equal(t, []history.JobRow{{ID: "j1", Queue: "q", Status: "queued"}, {ID: "j2", Queue: "q", Status: observe.UnmappedPrefix + "odd"}}, f.Jobs)
}

func TestScanFinalReferenceSchema(t *testing.T) {
	m := schema.Reference()
	db := withSchema(t, m)
	_, rdb := localtest.RedisClient(t)
	exec(t, db, "INSERT INTO ai_jobs (id, queue_name, status) VALUES ('j1', 'q', 'queued')")
	exec(t, db, `INSERT INTO outbox_events (event_type, aggregate_id, payload, status, published_at) VALUES ('ai.job.enqueue', 'j1', '{}', 'published', NOW(6))`)
	f, err := observe.ScanFinal(context.Background(), rdb, db, m, "bull", []string{"q"})
	require.NoError(t, err)
	require.Len(t, f.Outbox, 1)
	require.NotNil(t, f.Outbox[0].PublishedAt)
	require.False(t, f.Outbox[0].Created.IsZero())
	require.Equal(t, "j1", f.Outbox[0].JobID)
	require.Equal(t, "queued", f.Jobs[0].Status)
}

func redisZ(score float64, member string) redis.Z { return redis.Z{Score: score, Member: member} }
