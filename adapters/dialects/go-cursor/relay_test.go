package main

import (
	"context"
	"database/sql"
	"io"
	"log"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/env"
)

// logRig is a relay on a private MariaDB and Redis, with a settable clock
// for its gap lag, and a producer session.
type logRig struct {
	t   *testing.T
	db  *sql.DB
	rdb *redis.Client
	clk *clock
	r   *relay
}

func newLogRig(t *testing.T, plant string) *logRig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := env.Open(ctx, env.Config{Kind: env.KindLocal})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	db := openSchema(ctx, t, e)
	rdb := redis.NewClient(&redis.Options{Addr: e.RedisAddr(), DB: e.RedisDB()})
	t.Cleanup(func() { _ = rdb.Close() })
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	c := config{prefix: "bull", queues: []string{"q"}, poll: 10 * time.Millisecond, batch: 10,
		publishTimeout: time.Second, gapLag: 2 * time.Second, group: "g", plant: plant}
	r := &relay{c: c, db: db, pub: newPublisher(rdb, c.prefix, c.publishTimeout),
		gaps: newGapWatch(c.gapLag, clk.now), lg: log.New(io.Discard, "", 0)}
	return &logRig{t: t, db: db, rdb: rdb, clk: clk, r: r}
}

// write inserts a message for uuid in tx (nil: its own transaction).
func (g *logRig) write(tx *sql.Tx, uuid string) {
	g.t.Helper()
	q := "INSERT INTO outbox_messages (uuid, topic, payload) VALUES (?, 'q', JSON_OBJECT('jobId', ?))"
	var err error
	if tx == nil {
		_, err = g.db.Exec(q, uuid, uuid)
	} else {
		_, err = tx.Exec(q, uuid, uuid)
	}
	require.NoError(g.t, err)
}

func (g *logRig) begin() *sql.Tx {
	g.t.Helper()
	tx, err := g.db.Begin()
	require.NoError(g.t, err)
	return tx
}

// turn runs one round and returns the group's offset after it.
func (g *logRig) turn() int64 {
	g.t.Helper()
	_, err := g.r.round(context.Background())
	require.NoError(g.t, err)
	var acked int64
	require.NoError(g.t, g.db.QueryRow("SELECT offset_acked FROM outbox_offsets WHERE consumer_group = 'g'").Scan(&acked))
	return acked
}

// jobs lists which of ids have a BullMQ job in queue q.
func (g *logRig) jobs(ids ...string) []string {
	g.t.Helper()
	var out []string
	for _, id := range ids {
		n, err := g.rdb.Exists(context.Background(), "bull:q:"+id).Result()
		require.NoError(g.t, err)
		if n == 1 {
			out = append(out, id)
		}
	}
	return out
}

// TestRelayWaitsForHeldOffsetsAndPassesRolledBackOnes: offset 2 is rolled
// back, offset 3 is held open past any lag. The hole 2..3 holds until 3
// commits (passing 2 alone would publish nothing more); then 2 passes at
// once, its lag long over. A later hole of rolled-back offsets alone (5)
// passes once the lag is over.
func TestRelayWaitsForHeldOffsetsAndPassesRolledBackOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private MariaDB and Redis: not in -short")
	}
	g := newLogRig(t, "")
	g.write(nil, "m-1")
	rolled := g.begin()
	g.write(rolled, "m-2")
	require.NoError(t, rolled.Rollback())
	held := g.begin()
	g.write(held, "m-3")
	g.write(nil, "m-4")

	require.Equal(t, int64(1), g.turn(), "offsets 2..3 are missing, and young")
	require.Equal(t, []string{"m-1"}, g.jobs("m-1", "m-4"))
	g.clk.t = g.clk.t.Add(time.Hour)
	require.Equal(t, int64(1), g.turn(), "3 is still held, however long")
	require.Empty(t, g.jobs("m-3", "m-4"))

	require.NoError(t, held.Commit())
	require.Equal(t, int64(4), g.turn(), "3 committed; 2 is free")
	require.Equal(t, []string{"m-1", "m-3", "m-4"}, g.jobs("m-1", "m-3", "m-4"))

	rolled = g.begin()
	g.write(rolled, "m-5")
	require.NoError(t, rolled.Rollback())
	g.write(nil, "m-6")
	require.Equal(t, int64(4), g.turn(), "5 is missing, and young")
	g.clk.t = g.clk.t.Add(2 * time.Second)
	require.Equal(t, int64(6), g.turn(), "5 was rolled back: passed after the lag")
	require.Equal(t, []string{"m-6"}, g.jobs("m-5", "m-6"))
}

// TestTrustsIDPlantSkipsTheHeldOffset: the planted relay moves to the
// highest offset it read and never publishes the row that committed behind
// it.
func TestTrustsIDPlantSkipsTheHeldOffset(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private MariaDB and Redis: not in -short")
	}
	g := newLogRig(t, "trusts-id")
	held := g.begin()
	g.write(held, "m-1")
	g.write(nil, "m-2")
	require.Equal(t, int64(2), g.turn())
	require.NoError(t, held.Commit())
	require.Equal(t, int64(2), g.turn())
	require.Equal(t, []string{"m-2"}, g.jobs("m-1", "m-2"), "m-1 is behind the offset for good")
}

// TestAPausedTurnLosesTheGroupRow: on MariaDB a turn whose owner sends
// nothing for longer than the idle bound loses its transaction, so another
// instance takes the group's row, and the owner's late offset write fails.
func TestAPausedTurnLosesTheGroupRow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private MariaDB and Redis: not in -short")
	}
	g := newLogRig(t, "")
	ctx := context.Background()
	owner, err := g.db.BeginTx(ctx, readCommitted)
	require.NoError(t, err)
	defer func() { _ = owner.Rollback() }()
	require.NoError(t, g.r.boundIdle(ctx, owner))
	require.True(t, *g.r.mariadb, "the private server is MariaDB")
	acked, err := g.r.lockGroup(ctx, owner)
	require.NoError(t, err)

	// The owner is now idle inside its turn. Poll until another session
	// gets the row, within the bound and some slack.
	deadline := time.Now().Add(time.Duration(int(g.r.c.publishTimeout.Seconds())+3)*time.Second + 5*time.Second)
	for {
		other, err := g.db.BeginTx(ctx, readCommitted)
		require.NoError(t, err)
		var n int64
		err = other.QueryRowContext(ctx, "SELECT offset_acked FROM outbox_offsets WHERE consumer_group = 'g' FOR UPDATE NOWAIT").Scan(&n)
		_ = other.Rollback()
		if err == nil {
			break
		}
		require.True(t, isLockWait(err), "%v", err)
		require.True(t, time.Now().Before(deadline), "the idle owner still holds the group's row")
		time.Sleep(100 * time.Millisecond)
	}
	require.Error(t, g.r.ack(ctx, owner, acked, acked+1), "the owner's transaction is gone")
}
