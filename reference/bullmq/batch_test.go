package bullmq_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

func TestMixedBatchReturnsResultsInOrder(t *testing.T) {
	e := newEnv(t, bullmq.Options{DedupeHorizon: time.Hour})
	require.Equal(t, bullmq.Added, e.addOne(job("q", "exists")))
	require.Equal(t, bullmq.Added, e.addOne(job("q", "removed")))
	removeJob(t, e, "q", "removed")

	batch := []bullmq.Job{
		job("q", "new-1"),
		job("q", "exists"),
		job("q", "12"),
		job("q", "removed"),
		job("other", "new-2"),
		job("q", "new-1"), // the same id twice in one batch
		job("q", "x:y"),
	}
	res := e.add(batch...)
	want := []bullmq.Outcome{bullmq.Added, bullmq.Duplicate, 0, bullmq.Deduped, bullmq.Added, bullmq.Duplicate, 0}
	for i := range batch {
		require.Equal(t, batch[i], res[i].Job, "result %d", i)
		require.Equal(t, want[i], res[i].Outcome, "result %d (%s)", i, batch[i].ID)
		if want[i] == 0 {
			require.ErrorIs(t, res[i].Err, bullmq.ErrIllegalJobID, "result %d", i)
		} else {
			require.NoError(t, res[i].Err, "result %d", i)
		}
	}
	require.Equal(t, []string{"new-1", "exists"}, e.list("bull:q:wait"))
	require.Equal(t, []string{"new-2"}, e.list("bull:other:wait"))
	require.False(t, e.exists("bull:q:removed"))
}

func TestBatchIsOneRoundTrip(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	require.Equal(t, bullmq.Added, e.addOne(job("q", "warm-up"))) // loads the script
	batch := make([]bullmq.Job, 50)
	for i := range batch {
		batch[i] = job(fmt.Sprintf("q%d", i%3), fmt.Sprintf("j-%d", i))
	}
	e.calls.reset()
	res := e.add(batch...)
	require.EqualValues(t, 1, e.calls.pipelines.Load(), "pipelines sent")
	require.EqualValues(t, len(batch), e.calls.pipelinedCmds.Load(), "commands in the pipeline")
	require.Zero(t, e.calls.single.Load(), "single commands sent")
	for i, r := range res {
		require.NoError(t, r.Err)
		require.Equal(t, bullmq.Added, r.Outcome, "job %d", i)
	}
}

func TestNoScriptIsRecoveredByReloading(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	require.NoError(t, e.rdb.ScriptFlush(ctxFor(t)).Err())

	e.calls.reset()
	res := e.add(job("q", "j-2"), job("q", "j-1"), job("q", "j-3"))
	require.Equal(t, []bullmq.Outcome{bullmq.Added, bullmq.Duplicate, bullmq.Added},
		[]bullmq.Outcome{res[0].Outcome, res[1].Outcome, res[2].Outcome})
	for _, r := range res {
		require.NoError(t, r.Err)
	}
	require.EqualValues(t, 2, e.calls.pipelines.Load(), "the batch, then its retry")
	require.EqualValues(t, 1, e.calls.single.Load(), "one SCRIPT LOAD")
	require.Equal(t, []string{"j-3", "j-2", "j-1"}, e.list("bull:q:wait"))
}

func TestFirstAddOnAColdServerLoadsTheScript(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	res := e.add(job("q", "j-1"))
	require.NoError(t, res[0].Err)
	require.Equal(t, bullmq.Added, res[0].Outcome)
}

// LoadScript puts the add script in Redis's script cache ahead of the first
// add, under the SHA the adds call it by.
func TestLoadScriptAheadOfTheFirstAdd(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	sum := sha1.Sum([]byte(bullmq.AddScript))
	sha := hex.EncodeToString(sum[:])
	require.Equal(t, []bool{false}, e.rdb.ScriptExists(ctxFor(t), sha).Val())
	require.NoError(t, e.p.LoadScript(ctxFor(t)))
	require.Equal(t, []bool{true}, e.rdb.ScriptExists(ctxFor(t), sha).Val())
}

func TestRedisErrorReplyIsPerJob(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	require.NoError(t, e.rdb.Set(ctxFor(t), "bull:broken:meta", "not a hash", 0).Err())
	res := e.add(job("broken", "j-1"), job("q", "j-2"))
	require.ErrorContains(t, res[0].Err, "WRONGTYPE")
	require.ErrorContains(t, res[0].Err, `"j-1"`)
	require.NotErrorIs(t, res[0].Err, bullmq.ErrIllegalJobID)
	require.NoError(t, res[1].Err)
	require.Equal(t, bullmq.Added, res[1].Outcome)
}

func TestTransportErrorFailsTheBatch(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	require.NoError(t, e.server.Kill())

	res, err := e.p.Add(ctxFor(t), []bullmq.Job{job("q", "j-2"), job("q", "j-3")})
	require.Error(t, err)
	require.Contains(t, err.Error(), "outcome unknown")
	require.Nil(t, res)
}

func TestCancelledContextFailsTheBatch(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := e.p.Add(ctx, []bullmq.Job{job("q", "j-1")})
	require.ErrorIs(t, err, context.Canceled)
	require.Nil(t, res)
}

func TestEmptyBatchSendsNothing(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	res, err := e.p.Add(ctxFor(t), nil)
	require.NoError(t, err)
	require.Empty(t, res)
	require.Zero(t, e.calls.single.Load()+e.calls.pipelines.Load())
}

var _ redis.Hook = (*callCounter)(nil)
