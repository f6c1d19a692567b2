package observe_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
)

func scanNotes(run history.Run) map[string]history.KeyNote {
	out := map[string]history.KeyNote{}
	for _, k := range run.Keys {
		if k.Event == observe.EventScan {
			out[k.Queue+"/"+k.JobID] = k
		}
	}
	return out
}

// writeJobKeys writes job hashes and the keys under a queue that are not
// job hashes.
func writeJobKeys(t *testing.T, rdb *redis.Client, jobs map[string]string) {
	t.Helper()
	ctx := context.Background()
	for key, data := range jobs {
		require.NoError(t, rdb.HSet(ctx, key, "name", "ai-job", "data", data, "opts", `{"attempts":1}`).Err())
	}
	require.NoError(t, rdb.Set(ctx, "bull:q:ocdedupe:b", "add", 0).Err())
	require.NoError(t, rdb.LPush(ctx, "bull:q:wait", "a").Err())
	require.NoError(t, rdb.HSet(ctx, "bull:q:meta", "opts.maxLenEvents", "10000").Err())
	require.NoError(t, rdb.Set(ctx, "bull:q:notahash", "x", 0).Err())
}

func TestStartAfterStopScansEveryJobHash(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	rec := history.NewRecorder(history.Meta{})
	o := startObserver(t, rdb, rec)
	require.NoError(t, rdb.HSet(ctx, "bull:q:a", "data", `{"jobId":"a"}`, "opts", "{}").Err())
	localtest.Eventually(t, "the new note", func() bool { return len(rec.Snapshot().Keys) == 1 })
	require.NoError(t, o.Stop())
	require.Empty(t, scanNotes(rec.Snapshot()), "no scan without a gap")

	// Written while the observer is off: an overwrite and two new jobs.
	writeJobKeys(t, rdb, map[string]string{"bull:q:a": `{"jobId":"a","again":1}`, "bull:q:b": `{"jobId":"b"}`, "bull:other:c": `{"jobId":"c"}`})
	require.NoError(t, o.Start(localtest.Context(t)))
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	require.Len(t, gapsOf(run, observe.SourceKeyspace), 1)
	scans := scanNotes(run)
	require.Len(t, scans, 3, "one per job hash, none for ocdedupe, wait, meta or a string: %+v", scans)
	require.Equal(t, `{"jobId":"a","again":1}`, scans["q/a"].Data)
	require.Equal(t, "a", scans["q/a"].DataJobID)
	require.Equal(t, `{"attempts":1}`, scans["q/a"].Opts)
	require.Equal(t, "b", scans["q/b"].DataJobID)
	require.Equal(t, "c", scans["other/c"].DataJobID)
	require.True(t, scans["q/b"].At.After(gapsOf(run, observe.SourceKeyspace)[0].At), "scanned after the gap")
}

func TestReconnectAfterARestartScansEveryJobHash(t *testing.T) {
	ctx := localtest.Context(t)
	r, err := localenv.StartRedis(ctx, localenv.RedisOptions{Persistence: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	rec := history.NewRecorder(history.Meta{})
	o := startObserver(t, rdb, rec)
	require.NoError(t, rdb.HSet(ctx, "bull:q:kept", "data", `{"jobId":"kept"}`, "opts", "{}").Err())
	localtest.Eventually(t, "the new note", func() bool { return len(rec.Snapshot().Keys) == 1 })

	killed := time.Now().UTC()
	require.NoError(t, r.Kill())
	localtest.Eventually(t, "a keyspace gap", func() bool { return len(gapsOf(rec.Snapshot(), observe.SourceKeyspace)) > 0 })
	gap := gapsOf(rec.Snapshot(), observe.SourceKeyspace)[0]
	require.False(t, gap.At.After(killed), "the gap is dated by the last heartbeat answered, before the kill: %s", gap.At)
	require.Contains(t, gap.Detail, "noticed at")
	require.NoError(t, r.Start(ctx)) // the append-only file keeps the job
	localtest.Eventually(t, "the scan after the reconnect", func() bool { return len(scanNotes(rec.Snapshot())) == 1 })
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	scan := scanNotes(run)["q/kept"]
	require.Equal(t, `{"jobId":"kept"}`, scan.Data)
	require.Equal(t, "kept", scan.DataJobID)
	require.True(t, scan.At.After(gapsOf(run, observe.SourceKeyspace)[0].At), "scanned after the gap")
}
