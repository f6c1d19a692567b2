package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/env"
)

// clock is a settable time source for the gap watch.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestGapWatchAgesAMissingOffsetFromItsFirstSighting(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	g := newGapWatch(2*time.Second, c.now)
	probes := 0
	free := func(context.Context, int64, int64) (bool, error) { probes++; return true, nil }

	g.saw(10) // offsets below 10 not read were missing now
	c.t = c.t.Add(time.Second)
	g.saw(20) // a later read: 10..19 seen missing from here on
	ok, err := g.mayPass(context.Background(), 5, 9, free)
	require.NoError(t, err)
	require.False(t, ok, "5..9 missing for 1 s of a 2 s lag")
	require.Zero(t, probes, "no probe before the lag")

	c.t = c.t.Add(time.Second)
	ok, err = g.mayPass(context.Background(), 5, 9, free)
	require.NoError(t, err)
	require.True(t, ok, "5..9 missing for 2 s and free")
	ok, err = g.mayPass(context.Background(), 12, 14, free)
	require.NoError(t, err)
	require.False(t, ok, "12..14 first seen missing 1 s ago")
	require.Equal(t, 1, probes)

	held := func(context.Context, int64, int64) (bool, error) { return false, nil }
	c.t = c.t.Add(time.Hour)
	ok, err = g.mayPass(context.Background(), 12, 14, held)
	require.NoError(t, err)
	require.False(t, ok, "a held offset never passes, however old")

	g.forget(19)
	require.False(t, g.aged(25), "no sighting speaks of offsets above 19 any more")
	require.Empty(t, g.sightings)
}

func TestGapWatchKeepsOneSightingPerRisingTop(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	g := newGapWatch(time.Second, c.now)
	g.saw(10)
	c.t = c.t.Add(time.Minute)
	g.saw(10)
	g.saw(8)
	require.Len(t, g.sightings, 1, "a read that did not raise the top says nothing new")
	require.True(t, g.aged(9), "the first sighting dates the gap")
	g.forget(8)
	require.Len(t, g.sightings, 1, "the sighting still speaks of offset 9")
	g.forget(9)
	require.Empty(t, g.sightings)
}

func TestGapWatchReturnsTheProbeError(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	g := newGapWatch(time.Second, c.now)
	g.saw(5)
	c.t = c.t.Add(time.Second)
	boom := errors.New("connection lost")
	_, err := g.mayPass(context.Background(), 3, 4, func(context.Context, int64, int64) (bool, error) { return false, boom })
	require.ErrorIs(t, err, boom)
}

// TestLockProbeTellsHeldFromRolledBack runs the probe on a private MariaDB:
// an offset inside an open transaction is held (and the probe's lock wait
// error leaves its own transaction, and the row it locked, alive), a
// committed one is filled, a rolled-back one is free; the probe's open
// transaction does not block a producer's insert.
func TestLockProbeTellsHeldFromRolledBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private MariaDB: not in -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := env.Open(ctx, env.Config{Kind: env.KindLocal})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	db := openSchema(ctx, t, e)

	producer, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	insert := "INSERT INTO outbox_messages (uuid, topic, payload) VALUES (UUID(), 'q', '{}')"
	_, err = producer.ExecContext(ctx, insert) // offset 1, held open
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, insert) // offset 2, committed
	require.NoError(t, err)

	relayTx, err := db.BeginTx(ctx, readCommitted)
	require.NoError(t, err)
	defer func() { _ = relayTx.Rollback() }()
	var acked int64
	require.NoError(t, relayTx.QueryRowContext(ctx, "SELECT offset_acked FROM outbox_offsets WHERE consumer_group = 'g' FOR UPDATE").Scan(&acked))
	probe := lockProbe(relayTx, messagesTable)
	free, err := probe(ctx, 1, 1)
	require.NoError(t, err)
	require.False(t, free, "offset 1 is in an open transaction")
	free, err = probe(ctx, 2, 2)
	require.NoError(t, err)
	require.False(t, free, "offset 2 has committed: filled, not free")

	other, err := db.BeginTx(ctx, readCommitted)
	require.NoError(t, err)
	defer func() { _ = other.Rollback() }()
	short, stop := context.WithTimeout(ctx, 500*time.Millisecond)
	defer stop()
	err = other.QueryRowContext(short, "SELECT offset_acked FROM outbox_offsets WHERE consumer_group = 'g' FOR UPDATE NOWAIT").Scan(&acked)
	require.True(t, isLockWait(err), "the relay's transaction still holds the group's row after the probe's lock wait: %v", err)
	_, err = db.ExecContext(short, insert) // offset 3: not blocked by the probe
	require.NoError(t, err, "a probe takes no gap locks")

	require.NoError(t, producer.Rollback())
	free, err = probe(ctx, 1, 1)
	require.NoError(t, err)
	require.True(t, free, "offset 1 was rolled back: it can never fill")
	require.NoError(t, relayTx.Commit())
}

// openSchema creates a database with schema.sql's tables and group 'g'.
func openSchema(ctx context.Context, t *testing.T, e env.Env) *sql.DB {
	t.Helper()
	admin, err := sql.Open("mysql", e.MySQLDSN(""))
	require.NoError(t, err)
	defer admin.Close()
	_, err = admin.ExecContext(ctx, "CREATE DATABASE cursor_probe")
	require.NoError(t, err)
	db, err := sql.Open("mysql", e.MySQLDSN("cursor_probe"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	ddl, err := os.ReadFile("schema.sql")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, string(ddl))
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "INSERT INTO outbox_offsets VALUES ('g', 0)")
	require.NoError(t, err)
	return db
}
