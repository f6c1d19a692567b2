package observe

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// blockReads holds every HMGET while gate is set, until release is closed.
type blockReads struct {
	gate    atomic.Bool
	blocked chan struct{}
	release chan struct{}
}

func (b *blockReads) DialHook(next redis.DialHook) redis.DialHook { return next }
func (b *blockReads) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (b *blockReads) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "hmget" && b.gate.CompareAndSwap(true, false) {
			close(b.blocked)
			<-b.release
		}
		return next(ctx, cmd)
	}
}

// pubsubIDs lists the ids of the server's pub/sub clients.
func pubsubIDs(t *testing.T, admin *redis.Client) []string {
	t.Helper()
	list, err := admin.ClientList(context.Background()).Result()
	require.NoError(t, err)
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		id, psub := "", false
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "id="); ok {
				id = v
			}
			if v, ok := strings.CutPrefix(f, "psub="); ok && v != "0" {
				psub = true
			}
		}
		if psub {
			ids = append(ids, id)
		}
	}
	return ids
}

// While the keyspace loop is stuck reading a job hash, the pub/sub
// connection is killed and a heartbeat PING reconnects it: the loop reads no
// error, only the resubscription. It must still record the gap and rescan.
func TestReconnectBehindTheLoopsBackIsAGap(t *testing.T) {
	r := localtest.Redis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hook := &blockReads{blocked: make(chan struct{}), release: make(chan struct{})}
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr()})
	rdb.AddHook(hook)
	admin := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { _ = rdb.Close(); _ = admin.Close() })
	rec := history.NewRecorder(history.Meta{})
	o := NewRedisObserver(rdb, "bull", []string{"q"}, rec)
	require.NoError(t, o.Start(ctx))
	before := pubsubIDs(t, admin)
	require.Len(t, before, 1)

	hook.gate.Store(true)
	require.NoError(t, admin.HSet(ctx, "bull:q:a", "data", `{"jobId":"a"}`, "opts", "{}").Err())
	<-hook.blocked // the loop is reading bull:q:a
	require.NoError(t, admin.ClientKillByFilter(ctx, "ID", before[0]).Err())
	deadline := time.Now().Add(30 * time.Second)
	for ids := pubsubIDs(t, admin); len(ids) != 1 || ids[0] == before[0]; ids = pubsubIDs(t, admin) {
		require.True(t, time.Now().Before(deadline), "no heartbeat reconnected the pub/sub connection")
		time.Sleep(20 * time.Millisecond)
	}
	close(hook.release)
	deadline = time.Now().Add(30 * time.Second)
	for !hasScan(rec.Snapshot(), "a") {
		require.True(t, time.Now().Before(deadline), "no rescan after the reconnect: %+v", rec.Snapshot().Keys)
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, o.Stop())
	var gaps []history.Gap
	for _, g := range rec.Snapshot().Gaps {
		if g.Source == SourceKeyspace {
			gaps = append(gaps, g)
		}
	}
	require.Len(t, gaps, 1, "%+v", gaps)
	require.Contains(t, gaps[0].Detail, "re-established by a heartbeat PING")
}

func hasScan(run history.Run, id string) bool {
	for _, k := range run.Keys {
		if k.JobID == id && k.Event == EventScan {
			return true
		}
	}
	return false
}
