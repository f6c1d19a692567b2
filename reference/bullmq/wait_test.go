package bullmq_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

// With WaitReplicas an add counts only once the replica holds it: while
// the replica follows, the batch is added; once it stops following, the
// same adds run (the job exists) but every result is ErrNotReplicated.
func TestAddWaitsForItsReplica(t *testing.T) {
	// A generous bound while the replica follows (a loaded machine may be
	// slow to acknowledge), a short one once it cannot.
	e := newEnv(t, bullmq.Options{WaitReplicas: 1, WaitTimeout: 10 * time.Second})
	replica := localtest.RedisWith(t, localenv.RedisOptions{ReplicaOf: e.server.Addr()})
	require.NoError(t, replica.WaitLinked(ctxFor(t)))

	require.Equal(t, bullmq.Added, e.addOne(bullmq.Job{Queue: "q", ID: "j1", Name: "n", Data: "{}"}))

	rc := redis.NewClient(&redis.Options{Addr: replica.Addr()})
	t.Cleanup(func() { _ = rc.Close() })
	require.NoError(t, rc.Do(ctxFor(t), "REPLICAOF", "NO", "ONE").Err())
	p, err := bullmq.NewProducer(e.rdb, bullmq.Options{WaitReplicas: 1, WaitTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	e.p = p
	res := e.add(bullmq.Job{Queue: "q", ID: "j2", Name: "n", Data: "{}"}, bullmq.Job{Queue: "q", ID: "j1", Name: "n", Data: "{}"})
	for _, r := range res {
		require.True(t, errors.Is(r.Err, bullmq.ErrNotReplicated), "%v", r.Err)
		require.Contains(t, r.Err.Error(), "WAIT counted 0 of 1 replicas")
	}
	require.Equal(t, bullmq.Added, res[0].Outcome, "the add ran all the same")
	require.Equal(t, int64(1), e.rdb.Exists(ctxFor(t), "bull:q:j2").Val())
}

// Without a replica to count, a producer that asks for none adds as ever.
func TestAddWithoutWaitNeedsNoReplica(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	require.Equal(t, bullmq.Added, e.addOne(bullmq.Job{Queue: "q", ID: "j1", Name: "n", Data: "{}"}))
	_, err := bullmq.NewProducer(e.rdb, bullmq.Options{WaitReplicas: -1})
	require.ErrorContains(t, err, "WaitReplicas -1")
}
