package faultproxy

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// addScript stands in for a job add: one script that writes a key.
var addScript = redis.NewScript(`return redis.call('SET', KEYS[1], ARGV[1])`)

const lostTimeout = time.Second

func TestLostReplyRedisAddOnAnEstablishedConnection(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, lostTimeout)
	require.NoError(t, addScript.Load(ctx, direct).Err())
	require.NoError(t, c.Ping(ctx).Err(), "the pooled connection is established before the fault")

	id := added(t, p, LostReplyRedisAdd{})
	require.NoError(t, c.Set(ctx, "plain", "1", 0).Err(), "other commands pass")

	err := addScript.EvalSha(ctx, c, []string{"job:1"}, "v1").Err()
	require.True(t, isTimeout(err), "want a timeout, got %v", err)
	require.Equal(t, "v1", direct.Get(ctx, "job:1").Val(), "the add ran")
	fired, err := p.Fired(id)
	require.NoError(t, err)
	require.Equal(t, 1, fired)
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"fired": 1}, tally, "what the history record counts")

	require.NoError(t, addScript.EvalSha(ctx, c, []string{"job:2"}, "v2").Err(), "fired once, then passes")
	require.NoError(t, p.Remove(id))
	require.NoError(t, c.Ping(ctx).Err())
}

func TestLostReplyRedisAddInAPipelineLosesRepliesFromTheAddOn(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, lostTimeout)
	require.NoError(t, addScript.Load(ctx, direct).Err())
	added(t, p, LostReplyRedisAdd{})

	pipe := c.Pipeline()
	before := pipe.Set(ctx, "before", "1", 0)
	addScript.EvalSha(ctx, pipe, []string{"job:p"}, "v")
	pipe.Set(ctx, "after", "1", 0)
	_, err := pipe.Exec(ctx)
	require.True(t, isTimeout(err), "want a timeout, got %v", err)
	require.Equal(t, "OK", before.Val(), "the reply before the add arrived")
	require.Equal(t, "v", direct.Get(ctx, "job:p").Val())
	require.Equal(t, "1", direct.Get(ctx, "before").Val())
	require.Equal(t, "1", direct.Get(ctx, "after").Val(), "the whole pipeline reached the server")
}

func TestLostReplyRedisAddInATransaction(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, lostTimeout)
	require.NoError(t, addScript.Load(ctx, direct).Err())
	require.NoError(t, c.Ping(ctx).Err())
	added(t, p, LostReplyRedisAdd{})

	_, err := c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Set(ctx, "tx-other", "1", 0)
		addScript.EvalSha(ctx, pipe, []string{"job:tx"}, "v")
		return nil
	})
	require.True(t, isTimeout(err), "want a timeout, got %v", err)
	require.Equal(t, "v", direct.Get(ctx, "job:tx").Val(), "the transaction ran")
	require.Equal(t, "1", direct.Get(ctx, "tx-other").Val())
}

func TestLostReplyRedisAddSkipsANOSCRIPTReply(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, lostTimeout)
	require.NoError(t, direct.ScriptFlush(ctx).Err())
	id := added(t, p, LostReplyRedisAdd{})

	// Run sends EVALSHA, gets NOSCRIPT (which must come through), then EVAL.
	err := addScript.Run(ctx, c, []string{"job:n"}, "v").Err()
	require.True(t, isTimeout(err), "want a timeout on the EVAL, got %v", err)
	require.Equal(t, "v", direct.Get(ctx, "job:n").Val())
	fired, err := p.Fired(id)
	require.NoError(t, err)
	require.Equal(t, 1, fired)
}

func TestLostReplyMySQLCommit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		established bool
	}{{"established connection", true}, {"fault added before the connection", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := localtest.Context(t)
			direct, p, dsn := mysqlLink(t, 1, "CREATE TABLE t (id INT PRIMARY KEY)")
			db := localtest.MySQLVia(t, dsn, p.Addr())
			if tc.established {
				require.NoError(t, db.PingContext(ctx))
			}

			id := added(t, p, LostReplyMySQLCommit{})
			tx := begun(t, ctx, db, "INSERT INTO t VALUES (1)")
			require.Error(t, tx.Commit(), "the COMMIT's reply is lost")

			var n int
			require.NoError(t, direct.QueryRowContext(ctx, "SELECT COUNT(*) FROM t WHERE id = 1").Scan(&n))
			require.Equal(t, 1, n, "the transaction committed")
			fired, err := p.Fired(id)
			require.NoError(t, err)
			require.Equal(t, 1, fired)

			tx = begun(t, ctx, db, "INSERT INTO t VALUES (2)")
			require.NoError(t, tx.Commit(), "fired once, then passes")
			require.NoError(t, p.Heal())
		})
	}
}
