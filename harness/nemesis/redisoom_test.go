package nemesis

import (
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// redisOnlyEnv is an environment of which only a private Redis is used;
// control is nil for a Redis that is not the harness's own.
type redisOnlyEnv struct {
	env.Env
	r       *localenv.Redis
	control env.Control
}

func (e redisOnlyEnv) Name() string       { return "local" }
func (e redisOnlyEnv) RedisAddr() string  { return e.r.Addr() }
func (e redisOnlyEnv) RedisDB() int       { return 0 }
func (e redisOnlyEnv) Redis() env.Control { return e.control }
func (e redisOnlyEnv) MySQL() env.Control { return nil }

func redisNemesis(t *testing.T, own bool) (*Nemesis, *history.Recorder, *redis.Client) {
	t.Helper()
	r, rdb := localtest.RedisClient(t)
	e := redisOnlyEnv{r: r}
	if own {
		e.control = r
	}
	proxy := faultproxy.NewServer(rand.New(rand.NewSource(1)))
	t.Cleanup(func() { _ = proxy.Close() })
	links := map[string]*faultproxy.Proxy{}
	for _, name := range []string{"mysql/d1", "redis/d1"} {
		p, err := proxy.Link(name, "127.0.0.1:1") // unused: the window is the server's
		require.NoError(t, err)
		links[name] = p
	}
	rec := history.NewRecorder(history.Meta{Scenario: t.Name()})
	sup := supervisor.New(idleAdapter{}, rec, filepath.Join(t.TempDir(), "logs"))
	t.Cleanup(func() { require.NoError(t, sup.Close()) })
	n, err := New(Config{Supervisor: sup, Recorder: rec, Seed: 1, Env: e, Links: links,
		Slots: []string{"d1"}, SlotEnv: map[string]map[string]string{"d1": {}}})
	require.NoError(t, err)
	return n, rec, rdb
}

var writeScript = redis.NewScript(`return redis.call('SET', KEYS[1], ARGV[1])`)

// While the window is open the server itself refuses a script's write with
// its -OOM, reads work, and afterwards its own settings are back.
func TestRedisOutOfMemoryIsTheServersOwnRefusal(t *testing.T) {
	ctx := localtest.Context(t)
	n, rec, rdb := redisNemesis(t, true)
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err())
	require.NoError(t, rdb.Set(ctx, "k", "before", 0).Err())

	done := make(chan error, 1)
	go func() { done <- n.RedisOutOfMemory(ctx, 2*time.Second) }()
	localtest.Eventually(t, "maxmemory set", func() bool {
		return rdb.ConfigGet(ctx, "maxmemory").Val()["maxmemory"] == "1"
	})
	err := writeScript.Run(ctx, rdb, []string{"k"}, "during").Err()
	require.ErrorContains(t, err, "OOM command not allowed")
	require.Equal(t, "before", rdb.Get(ctx, "k").Val(), "the refused script wrote nothing; reads work")
	require.NoError(t, <-done)

	require.NoError(t, writeScript.Run(ctx, rdb, []string{"k"}, "after").Err())
	cfg := rdb.ConfigGet(ctx, "maxmemory*").Val()
	require.Equal(t, "0", cfg["maxmemory"])
	require.Equal(t, "allkeys-lru", cfg["maxmemory-policy"], "the server's own policy is back")
	faults := rec.Snapshot().Faults
	require.Len(t, faults, 1)
	require.Equal(t, history.FaultRedisMaxMemory, faults[0].Kind)
	require.GreaterOrEqual(t, faults[0].End.Sub(faults[0].Start), 2*time.Second)
}

func TestRedisOutOfMemoryLeavesAnotherTeamsRedisAlone(t *testing.T) {
	ctx := localtest.Context(t)
	n, rec, rdb := redisNemesis(t, false)
	require.False(t, n.CanFillRedis())
	require.ErrorContains(t, n.RedisOutOfMemory(ctx, time.Second), "is not the harness's own")
	require.Equal(t, "0", rdb.ConfigGet(ctx, "maxmemory").Val()["maxmemory"])
	require.Empty(t, rec.Snapshot().Faults)
}

// persistentNemesis is redisNemesis on a Redis with its append-only file,
// its links leading to it, and a Redis observer on it.
func persistentNemesis(t *testing.T) (*Nemesis, *history.Recorder, *redis.Client, *redis.Client) {
	t.Helper()
	ctx := localtest.Context(t)
	r, direct := localtest.RedisClientWith(t, localenv.RedisOptions{Persistence: true})
	proxy := faultproxy.NewServer(rand.New(rand.NewSource(1)))
	t.Cleanup(func() { _ = proxy.Close() })
	links := map[string]*faultproxy.Proxy{}
	for name, up := range map[string]string{"mysql/d1": "127.0.0.1:1", "redis/d1": r.Addr()} {
		p, err := proxy.Link(name, up)
		require.NoError(t, err)
		links[name] = p
	}
	via := redis.NewClient(&redis.Options{Addr: links["redis/d1"].Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = via.Close() })
	rec := history.NewRecorder(history.Meta{Scenario: t.Name()})
	obs := observe.NewRedisObserver(direct, "bull", []string{"q"}, rec)
	require.NoError(t, obs.Start(ctx))
	t.Cleanup(func() { _ = obs.Stop() })
	sup := supervisor.New(idleAdapter{}, rec, filepath.Join(t.TempDir(), "logs"))
	t.Cleanup(func() { require.NoError(t, sup.Close()) })
	n, err := New(Config{Supervisor: sup, Recorder: rec, Seed: 1, Env: redisOnlyEnv{r: r, control: r}, Links: links,
		Observer: obs, Slots: []string{"d1"}, SlotEnv: map[string]map[string]string{"d1": {}}})
	require.NoError(t, err)
	return n, rec, direct, via
}

// What an instance wrote before the append-only file went off survives the
// restart; what Redis acknowledged after is gone. The instance's link is
// cut from before the kill until after the observer's second checkpoint,
// and the windows are recorded in that order.
func TestRestartRedisLosingLosesExactlyTheUnpersistedWrites(t *testing.T) {
	ctx := localtest.Context(t)
	n, rec, direct, via := persistentNemesis(t)
	require.NoError(t, via.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", Values: []string{"event", "added", "jobId", "before"}}).Err())

	done := make(chan error, 1)
	go func() { done <- n.RestartRedisLosing(ctx, time.Second, 200*time.Millisecond) }()
	localtest.Eventually(t, "the append-only file off", func() bool {
		return direct.ConfigGet(ctx, "appendonly").Val()["appendonly"] == "no"
	})
	require.NoError(t, via.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", Values: []string{"event", "added", "jobId", "during"}}).Err())
	require.NoError(t, <-done)

	entries, err := direct.XRange(ctx, "bull:q:events", "-", "+").Result()
	require.NoError(t, err)
	require.Len(t, entries, 1, "the add acknowledged while the file was off is gone")
	require.Equal(t, "before", entries[0].Values["jobId"])
	require.Equal(t, "yes", direct.ConfigGet(ctx, "appendonly").Val()["appendonly"], "the restarted server writes its file again")
	require.NoError(t, via.Ping(ctx).Err(), "the link healed")

	run := rec.Snapshot()
	kinds := map[string]history.Fault{}
	for _, f := range run.Faults {
		kinds[f.Kind] = f
	}
	unpersisted, cut, quiet, restart := kinds[history.FaultRedisUnpersisted], kinds["down"], kinds[history.FaultQuietRestart], kinds["server-restart"]
	require.Equal(t, "redis", cut.Target, "every instance's Redis link is cut")
	require.True(t, cut.Start.Before(quiet.Start) && quiet.Start.Before(restart.Start), "cut, then quiet, then the kill")
	require.False(t, unpersisted.End.After(restart.End) || unpersisted.End.Before(restart.Start), "the unpersisted window ends at the kill")
	require.True(t, restart.End.Before(quiet.End) && !quiet.End.After(cut.End), "the observer was back before the cut healed")
	require.NotEmpty(t, run.Gaps)
	for _, g := range run.Gaps {
		require.False(t, g.At.Before(quiet.Start) || g.At.After(quiet.End), "gap %s at %s is inside the quiet restart", g.Source, g.At)
	}
}

func TestRestartRedisLosingWantsAnAppendOnlyFile(t *testing.T) {
	ctx := localtest.Context(t)
	n, rec, rdb := redisNemesis(t, true)
	n.obs = observe.NewRedisObserver(rdb, "bull", []string{"q"}, rec)
	err := n.RestartRedisLosing(ctx, time.Second, time.Second)
	require.ErrorContains(t, err, "without its append-only file")
	require.Empty(t, rec.Snapshot().Faults, "nothing was done")
	require.Equal(t, "no", rdb.ConfigGet(ctx, "appendonly").Val()["appendonly"])
}

// replicatedEnv is redisOnlyEnv with a replica of its Redis.
type replicatedEnv struct {
	redisOnlyEnv
	replica string
}

func (e replicatedEnv) RedisReplicaAddr() string { return e.replica }

// With a replica, the replica stops following before the file goes off:
// a write WAIT counted on it survives, a write acknowledged after counts no
// replica and is gone, and once the server is back the replica follows it
// again, holding what the restarted server holds.
func TestRestartRedisLosingWithAReplicaKeepsWhatTheReplicaHeld(t *testing.T) {
	ctx := localtest.Context(t)
	n, rec, direct, via := persistentNemesis(t)
	own := n.env.(redisOnlyEnv)
	replica := localtest.RedisWith(t, localenv.RedisOptions{ReplicaOf: own.r.Addr()})
	require.NoError(t, replica.WaitLinked(ctx))
	n.env = replicatedEnv{redisOnlyEnv: own, replica: replica.Addr()}
	rc := redis.NewClient(&redis.Options{Addr: replica.Addr()})
	t.Cleanup(func() { _ = rc.Close() })

	pipe := via.Pipeline()
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", Values: []string{"event", "added", "jobId", "before"}})
	counted := pipe.Do(ctx, "WAIT", 1, 1000)
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), counted.Val(), "the replica holds the first add")

	done := make(chan error, 1)
	go func() { done <- n.RestartRedisLosing(ctx, time.Second, 200*time.Millisecond) }()
	localtest.Eventually(t, "the append-only file off", func() bool {
		return direct.ConfigGet(ctx, "appendonly").Val()["appendonly"] == "no"
	})
	require.Contains(t, rc.Info(ctx, "replication").Val(), "role:master", "the replica stopped following first")
	pipe = via.Pipeline()
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", Values: []string{"event", "added", "jobId", "during"}})
	counted = pipe.Do(ctx, "WAIT", 1, 100)
	_, err = pipe.Exec(ctx)
	require.NoError(t, err)
	require.Zero(t, counted.Val(), "no replica counts the second add")
	require.NoError(t, <-done)

	for _, c := range []*redis.Client{direct, rc} {
		localtest.Eventually(t, "one entry on each server", func() bool {
			entries, err := c.XRange(ctx, "bull:q:events", "-", "+").Result()
			return err == nil && len(entries) == 1 && entries[0].Values["jobId"] == "before"
		})
	}
	require.Contains(t, rc.Info(ctx, "replication").Val(), "master_link_status:up", "the replica follows the restarted server")
	require.Equal(t, int64(1), via.Do(ctx, "WAIT", 1, 1000).Val(), "WAIT counts the replica again")
	for _, f := range rec.Snapshot().Faults {
		if f.Kind == history.FaultRedisUnpersisted {
			require.Contains(t, f.Params["mechanism"], "REPLICAOF NO ONE")
		}
	}
}
