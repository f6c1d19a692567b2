package workload_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// addJob writes a job as a BullMQ add with a custom jobId does: the hash,
// then the id pushed on the left of the wait list.
func addJob(t *testing.T, rdb *redis.Client, q, id, dataJobID string) {
	t.Helper()
	ctx := context.Background()
	key := "bull:" + q + ":" + id
	require.NoError(t, rdb.HSet(ctx, key, "name", "ai-job", "data", fmt.Sprintf(`{"jobId":%q}`, dataJobID),
		"opts", `{"jobId":"`+id+`"}`, "timestamp", strconv.FormatInt(time.Now().UnixMilli(), 10),
		"delay", "0", "priority", "0").Err())
	require.NoError(t, rdb.LPush(ctx, "bull:"+q+":wait", id).Err())
}

func insertJobRow(t *testing.T, db *sql.DB, id, queue, status string) {
	t.Helper()
	_, err := db.Exec("INSERT INTO ai_jobs (id, queue_name, status) VALUES (?, ?, ?)", id, queue, status)
	require.NoError(t, err)
}

// runConsumer runs c until the test ends and waits for Run to return.
func runConsumer(t *testing.T, c *workload.Consumer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		require.NoError(t, c.Run(ctx))
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

func consumerConfig(rdb *redis.Client, db *sql.DB, rec *history.Recorder) workload.ConsumerConfig {
	return workload.ConsumerConfig{Redis: rdb, DB: db, Schema: schema.Reference(), Prefix: "bull",
		Queues: []string{"ai-default", "ai-bulk"}, Workers: 3, Recorder: rec, Name: "w"}
}

func newConsumer(t *testing.T, cfg workload.ConsumerConfig) *workload.Consumer {
	t.Helper()
	c, err := workload.NewConsumer(cfg)
	require.NoError(t, err)
	return c
}

func takesByJob(rec *history.Recorder) map[string][]history.Take {
	out := map[string][]history.Take{}
	for _, tk := range rec.Snapshot().Takes {
		out[tk.JobID] = append(out[tk.JobID], tk)
	}
	return out
}

func jobStatus(t *testing.T, db *sql.DB, id string) string {
	t.Helper()
	var s string
	require.NoError(t, db.QueryRow("SELECT status FROM ai_jobs WHERE id = ?", id).Scan(&s))
	return s
}

func TestConsumerTakesEachJobOnceAndMovesRows(t *testing.T) {
	db := referenceDB(t)
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	var ids []string
	for i := 0; i < 30; i++ {
		id, q, status := fmt.Sprintf("j-c-%d", i), []string{"ai-default", "ai-bulk"}[i%2], []string{"queued", "created"}[i%3/2]
		insertJobRow(t, db, id, q, status)
		addJob(t, rdb, q, id, id)
		ids = append(ids, id)
	}
	insertJobRow(t, db, "j-c-done", "ai-default", "cancelled") // a state the worker must not touch
	addJob(t, rdb, "ai-default", "j-c-done", "j-c-done")

	rec := history.NewRecorder(history.Meta{})
	runConsumer(t, newConsumer(t, consumerConfig(rdb, db, rec)))
	localtest.Eventually(t, "31 completed jobs", func() bool {
		a, _ := rdb.ZCard(ctx, "bull:ai-default:completed").Result()
		b, _ := rdb.ZCard(ctx, "bull:ai-bulk:completed").Result()
		return a+b == 31
	})

	takes := takesByJob(rec)
	require.Len(t, takes, 31)
	for _, id := range ids {
		require.Len(t, takes[id], 1, "job %s taken once", id)
		require.Equal(t, id, takes[id][0].DataJobID)
		require.Contains(t, []string{"w/0", "w/1", "w/2"}, takes[id][0].Worker)
		require.Equal(t, "succeeded", jobStatus(t, db, id), "job row %s moved on", id)
		fin, err := rdb.HGet(ctx, "bull:"+takes[id][0].Queue+":"+id, "finishedOn").Result()
		require.NoError(t, err)
		require.NotEmpty(t, fin)
	}
	require.Equal(t, "cancelled", jobStatus(t, db, "j-c-done"), "a row past the fence is left alone")
	for _, q := range []string{"ai-default", "ai-bulk"} {
		n, err := rdb.LLen(ctx, "bull:"+q+":active").Result()
		require.NoError(t, err)
		require.Zero(t, n, "active of %s is empty", q)
	}
	events, err := rdb.XRange(ctx, "bull:ai-default:events", "-", "+").Result()
	require.NoError(t, err)
	require.NotEmpty(t, events)
}

func TestConsumerRemoveOnCompleteDeletesHashes(t *testing.T) {
	db := referenceDB(t)
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("j-r-%d", i)
		insertJobRow(t, db, id, "ai-default", "queued")
		addJob(t, rdb, "ai-default", id, id)
	}
	rec := history.NewRecorder(history.Meta{})
	cfg := consumerConfig(rdb, db, rec)
	cfg.RemoveOnComplete = true
	c := newConsumer(t, cfg)
	runConsumer(t, c)
	localtest.Eventually(t, "5 completed", func() bool { return c.Stats().Completed == 5 })
	for i := 0; i < 5; i++ {
		n, err := rdb.Exists(ctx, fmt.Sprintf("bull:ai-default:j-r-%d", i)).Result()
		require.NoError(t, err)
		require.Zero(t, n, "hash removed on complete")
	}
	n, err := rdb.Exists(ctx, "bull:ai-default:completed").Result()
	require.NoError(t, err)
	require.Zero(t, n, "nothing added to completed")
	require.Len(t, rec.Snapshot().Takes, 5)
}

func TestConsumerRecordsATakeForEachPush(t *testing.T) {
	for _, remove := range []bool{false, true} {
		t.Run(fmt.Sprintf("removeOnComplete=%v", remove), func(t *testing.T) {
			db := referenceDB(t)
			_, rdb := localtest.RedisClient(t)
			insertJobRow(t, db, "j-twice", "ai-default", "queued")
			addJob(t, rdb, "ai-default", "j-twice", "j-twice")
			require.NoError(t, rdb.LPush(context.Background(), "bull:ai-default:wait", "j-twice").Err())
			rec := history.NewRecorder(history.Meta{})
			cfg := consumerConfig(rdb, db, rec)
			cfg.Workers, cfg.RemoveOnComplete = 1, remove
			c := newConsumer(t, cfg)
			runConsumer(t, c)
			localtest.Eventually(t, "two takes", func() bool { return c.Stats().Taken == 2 })
			localtest.Eventually(t, "two takes recorded", func() bool { return len(rec.Snapshot().Takes) == 2 })
			takes := takesByJob(rec)["j-twice"]
			require.Len(t, takes, 2)
			require.Equal(t, "j-twice", takes[0].DataJobID)
			if remove {
				require.Empty(t, takes[1].DataJobID, "the hash was removed by the first completion and is not recreated")
			} else {
				require.Equal(t, "j-twice", takes[1].DataJobID)
			}
		})
	}
}

func TestConsumerWithoutWorkerWordsLeavesRows(t *testing.T) {
	db := referenceDB(t)
	_, rdb := localtest.RedisClient(t)
	insertJobRow(t, db, "j-w", "ai-default", "queued")
	addJob(t, rdb, "ai-default", "j-w", "j-w")
	rec := history.NewRecorder(history.Meta{})
	cfg := consumerConfig(rdb, db, rec)
	cfg.Schema.JobStatus = map[string]string{"created": "created", "queued": "queued"}
	c := newConsumer(t, cfg)
	runConsumer(t, c)
	localtest.Eventually(t, "completed", func() bool { return c.Stats().Completed == 1 })
	require.Equal(t, "queued", jobStatus(t, db, "j-w"))
	require.Zero(t, c.Stats().Errors, c.Stats().LastError)
}

func TestConsumerConfigErrors(t *testing.T) {
	rec := history.NewRecorder(history.Meta{})
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	db, err := sql.Open("mysql", "root@tcp(127.0.0.1:1)/x")
	require.NoError(t, err)
	defer db.Close()
	cases := map[string]struct {
		edit func(*workload.ConsumerConfig)
		want string
	}{
		"no redis":    {func(c *workload.ConsumerConfig) { c.Redis = nil }, "Redis is nil"},
		"no db":       {func(c *workload.ConsumerConfig) { c.DB = nil }, "DB is nil"},
		"no prefix":   {func(c *workload.ConsumerConfig) { c.Prefix = "" }, "Prefix is empty"},
		"no queues":   {func(c *workload.ConsumerConfig) { c.Queues = nil }, "no queues; name at least one"},
		"bad workers": {func(c *workload.ConsumerConfig) { c.Workers = -1 }, "Workers is -1"},
		"no recorder": {func(c *workload.ConsumerConfig) { c.Recorder = nil }, "Recorder is nil"},
		"bad schema":  {func(c *workload.ConsumerConfig) { c.Schema.Jobs.Table = "" }, "jobs.table"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := consumerConfig(rdb, db, rec)
			tc.edit(&cfg)
			_, err := workload.NewConsumer(cfg)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
