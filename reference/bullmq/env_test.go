package bullmq_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

// env is one test's private Redis, a client counting what it sends, and a
// producer on that client.
type env struct {
	t      *testing.T
	server *localenv.Redis
	rdb    *redis.Client
	calls  *callCounter
	p      *bullmq.Producer
}

func newEnv(t *testing.T, opts bullmq.Options) *env {
	t.Helper()
	server := localtest.Redis(t)
	rdb := redis.NewClient(&redis.Options{Addr: server.Addr(), MaxRetries: 1, DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = rdb.Close() })
	calls := &callCounter{}
	rdb.AddHook(calls)
	p, err := bullmq.NewProducer(rdb, opts)
	require.NoError(t, err)
	return &env{t: t, server: server, rdb: rdb, calls: calls, p: p}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// add adds jobs and requires a known batch outcome.
func (e *env) add(jobs ...bullmq.Job) []bullmq.Result {
	e.t.Helper()
	res, err := e.p.Add(ctxFor(e.t), jobs)
	require.NoError(e.t, err)
	require.Len(e.t, res, len(jobs))
	return res
}

// addOne adds one job and returns its outcome, requiring no per-job error.
func (e *env) addOne(j bullmq.Job) bullmq.Outcome {
	e.t.Helper()
	res := e.add(j)
	require.NoError(e.t, res[0].Err)
	require.Equal(e.t, j, res[0].Job)
	return res[0].Outcome
}

func job(queue, id string) bullmq.Job {
	return bullmq.Job{Queue: queue, ID: id, Name: "ai-job", Data: `{"jobId":"` + id + `"}`}
}

// event is one BullMQ events-stream entry's fields, in order.
type event []string

// events reads a queue's events stream, each entry's fields in stored order
// (go-redis's XRange returns them as a map, so read the raw reply).
func (e *env) events(queue string) []event {
	e.t.Helper()
	raw, err := e.rdb.Do(ctxFor(e.t), "XRANGE", "bull:"+queue+":events", "-", "+").Slice()
	require.NoError(e.t, err)
	out := make([]event, 0, len(raw))
	for _, entry := range raw {
		fields := entry.([]any)[1].([]any)
		ev := make(event, len(fields))
		for i, f := range fields {
			ev[i] = f.(string)
		}
		out = append(out, ev)
	}
	return out
}

func (e *env) list(key string) []string {
	e.t.Helper()
	v, err := e.rdb.LRange(ctxFor(e.t), key, 0, -1).Result()
	require.NoError(e.t, err)
	return v
}

func (e *env) exists(key string) bool {
	e.t.Helper()
	n, err := e.rdb.Exists(ctxFor(e.t), key).Result()
	require.NoError(e.t, err)
	return n == 1
}

func (e *env) hash(key string) map[string]string {
	e.t.Helper()
	v, err := e.rdb.HGetAll(ctxFor(e.t), key).Result()
	require.NoError(e.t, err)
	return v
}

func (e *env) keys() []string {
	e.t.Helper()
	v, err := e.rdb.Keys(ctxFor(e.t), "*").Result()
	require.NoError(e.t, err)
	return v
}

// callCounter counts commands and pipelines a client sends.
type callCounter struct {
	single, pipelines, pipelinedCmds atomic.Int64
}

func (c *callCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *callCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.single.Add(1)
		return next(ctx, cmd)
	}
}

func (c *callCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.pipelines.Add(1)
		c.pipelinedCmds.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

func (c *callCounter) reset() {
	c.single.Store(0)
	c.pipelines.Store(0)
	c.pipelinedCmds.Store(0)
}
