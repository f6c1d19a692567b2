package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/env"
)

// pgRig is a relay on a private PostgreSQL and Redis, and the producer
// sessions of a test.
type pgRig struct {
	t   *testing.T
	url string
	rdb *redis.Client
	r   *relay
}

func newPGRig(t *testing.T, plant string) *pgRig {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a private PostgreSQL and Redis: not in -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := env.Open(ctx, env.Config{Kind: env.KindLocal})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	pg, err := e.Postgres(ctx)
	require.NoError(t, err)
	require.NoError(t, pg.CreateDatabase(ctx, "pgcursor"))
	url := pg.URL("pgcursor")
	ddl, err := os.ReadFile("schema.sql")
	require.NoError(t, err)
	admin, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	_, err = admin.Exec(ctx, string(ddl))
	require.NoError(t, err)
	require.NoError(t, admin.Close(ctx))
	rdb := redis.NewClient(&redis.Options{Addr: e.RedisAddr(), DB: e.RedisDB()})
	t.Cleanup(func() { _ = rdb.Close() })
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	c := config{prefix: "bull", queues: []string{"q"}, poll: 10 * time.Millisecond, batch: 10,
		publishTimeout: time.Second, group: "g", plant: plant}
	r := &relay{c: c, cfg: cfg, pub: newPublisher(rdb, c.prefix, c.publishTimeout), lg: log.New(io.Discard, "", 0)}
	t.Cleanup(func() { r.broken(nil) })
	return &pgRig{t: t, url: url, rdb: rdb, r: r}
}

// session opens a producer connection.
func (g *pgRig) session() *pgx.Conn {
	g.t.Helper()
	conn, err := pgx.Connect(context.Background(), g.url)
	require.NoError(g.t, err)
	g.t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// begin opens a transaction on a session of its own.
func (g *pgRig) begin() pgx.Tx {
	g.t.Helper()
	tx, err := g.session().Begin(context.Background())
	require.NoError(g.t, err)
	return tx
}

// write inserts the message uuid n (a uuid ending in n) in tx, or in its
// own transaction when tx is nil.
func (g *pgRig) write(tx pgx.Tx, n int) {
	g.t.Helper()
	q := "INSERT INTO outbox_messages (uuid, topic, payload) VALUES ($1, 'q', jsonb_build_object('n', $2::int))"
	var err error
	if tx == nil {
		_, err = g.session().Exec(context.Background(), q, uuidOf(n), n)
	} else {
		_, err = tx.Exec(context.Background(), q, uuidOf(n), n)
	}
	require.NoError(g.t, err)
}

func uuidOf(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// turn runs one round and returns the group's offset after it (0 while
// the group has no row: a round that passed nothing commits nothing).
func (g *pgRig) turn() int64 {
	g.t.Helper()
	_, err := g.r.round(context.Background())
	require.NoError(g.t, err)
	var acked int64
	require.NoError(g.t, g.session().QueryRow(context.Background(), "SELECT COALESCE(max(offset_acked), 0) FROM outbox_offsets WHERE consumer_group = 'g'").Scan(&acked))
	return acked
}

// jobs lists which of the messages ns have a BullMQ job.
func (g *pgRig) jobs(ns ...int) []int {
	g.t.Helper()
	var out []int
	for _, n := range ns {
		k, err := g.rdb.Exists(context.Background(), "bull:q:"+uuidOf(n)).Result()
		require.NoError(g.t, err)
		if k == 1 {
			out = append(out, n)
		}
	}
	return out
}

func commit(t *testing.T, tx pgx.Tx) { require.NoError(t, tx.Commit(context.Background())) }

func rollback(t *testing.T, tx pgx.Tx) { require.NoError(t, tx.Rollback(context.Background())) }

// TestRelayWaitsForAHeldOffsetAndPassesARolledBackOne: offset 2 rolled
// back, 3 held open. The hole stops the cursor until 3 commits, however
// long; then 2 and 3 pass at once. A later rolled-back offset alone (5) is
// passed one turn after the turn that saw it, with no timer.
func TestRelayWaitsForAHeldOffsetAndPassesARolledBackOne(t *testing.T) {
	g := newPGRig(t, "")
	g.write(nil, 1)
	rolled := g.begin()
	g.write(rolled, 2)
	rollback(t, rolled)
	held := g.begin()
	g.write(held, 3)
	g.write(nil, 4)

	require.Equal(t, int64(1), g.turn(), "offsets 2..3 are missing")
	require.Equal(t, int64(1), g.turn(), "3 is held: the xmin stays below the stamp")
	require.Equal(t, []int{1}, g.jobs(1, 3, 4))

	commit(t, held)
	require.Equal(t, int64(4), g.turn(), "3 committed; 2 was rolled back")
	require.Equal(t, []int{1, 3, 4}, g.jobs(1, 3, 4))

	rolled = g.begin()
	g.write(rolled, 5)
	rollback(t, rolled)
	g.write(nil, 6)
	require.Equal(t, int64(4), g.turn(), "5 is missing: the turn takes a stamp")
	require.Equal(t, int64(6), g.turn(), "every transaction up to the stamp has ended: 5 was rolled back")
	require.Equal(t, []int{6}, g.jobs(5, 6))
}

// TestRelayWaitsWhenTheHolderHasTheHigherTransactionID: the held
// transaction took its id after the committed one but its offset before
// it, so the committed row is below the snapshot's xmin and a relay that
// trusted the xmin alone would pass the hole. The stamp holds it.
func TestRelayWaitsWhenTheHolderHasTheHigherTransactionID(t *testing.T) {
	g := newPGRig(t, "")
	ctx := context.Background()
	early := g.begin()
	var early8, held8 uint64
	require.NoError(t, early.QueryRow(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(&early8))
	held := g.begin()
	g.write(held, 1)
	require.NoError(t, held.QueryRow(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(&held8))
	g.write(early, 2)
	commit(t, early)
	require.Less(t, early8, held8)

	tx, err := g.session().Begin(ctx)
	require.NoError(t, err)
	rd, err := readBatch(ctx, tx, 0, 10, "q")
	require.NoError(t, err)
	rollback(t, tx)
	require.Equal(t, []int64{2}, offsets(rd.rows))
	require.Less(t, rd.rows[0].txid, rd.xmin, "offset 2's transaction is below the xmin, the hole 1 still held")

	require.Equal(t, int64(0), g.turn())
	require.Equal(t, int64(0), g.turn())
	commit(t, held)
	require.Equal(t, int64(2), g.turn())
	require.Equal(t, []int{1, 2}, g.jobs(1, 2))
}

// TestTrustsIDPlantSkipsTheHeldOffset: the planted relay moves past the
// hole and never publishes the row that committed behind it.
func TestTrustsIDPlantSkipsTheHeldOffset(t *testing.T) {
	g := newPGRig(t, "trusts-id")
	held := g.begin()
	g.write(held, 1)
	g.write(nil, 2)
	require.Equal(t, int64(2), g.turn())
	commit(t, held)
	require.Equal(t, int64(2), g.turn())
	require.Equal(t, []int{2}, g.jobs(1, 2), "1 is behind the offset for good")
}

// TestAPausedTurnLosesTheGroup: a turn whose owner sends nothing for longer
// than its idle bound loses its session, so another instance takes the
// group's lock, and the owner's late offset write fails.
func TestAPausedTurnLosesTheGroup(t *testing.T) {
	g := newPGRig(t, "")
	ctx := context.Background()
	conn, err := g.r.connect(ctx)
	require.NoError(t, err)
	owner, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	require.NoError(t, err)
	acked, err := g.r.takeTurn(ctx, owner)
	require.NoError(t, err)

	other := g.session()
	deadline := time.Now().Add(g.r.c.publishTimeout + 3*time.Second + 5*time.Second)
	for {
		var got bool
		require.NoError(t, other.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtextextended('go-pgcursor:' || $1, 0))", "g").Scan(&got))
		if got {
			break
		}
		require.True(t, time.Now().Before(deadline), "the idle owner still holds the group")
		time.Sleep(100 * time.Millisecond)
	}
	require.Error(t, move(ctx, owner, "g", acked, acked+1), "the owner's session is gone")
}
