package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
)

// gapWatch remembers since when offsets have been seen missing, for the
// offsets a reader has passed by: a read that returned the rows of (acked,
// top] in order saw every absent offset below top missing at that moment.
// It keeps one sighting per read that raised top, so its memory is bounded
// by the rounds between the cursor and the newest row.
type gapWatch struct {
	lag       time.Duration
	now       func() time.Time
	sightings []sighting // ascending in top and in at
}

// sighting says: at time at, every offset below top that no row held was
// missing.
type sighting struct {
	top int64
	at  time.Time
}

func newGapWatch(lag time.Duration, now func() time.Time) *gapWatch {
	return &gapWatch{lag: lag, now: now}
}

// saw records a read whose highest offset was top, taken just now.
func (g *gapWatch) saw(top int64) {
	if n := len(g.sightings); n > 0 && g.sightings[n-1].top >= top {
		return
	}
	g.sightings = append(g.sightings, sighting{top: top, at: g.now()})
}

// forget drops the sightings the cursor has passed: they speak only of
// offsets up to acked.
func (g *gapWatch) forget(acked int64) {
	i := 0
	for i < len(g.sightings) && g.sightings[i].top <= acked+1 {
		i++
	}
	g.sightings = g.sightings[i:]
}

// aged tells whether offset id has been seen missing for at least the lag.
func (g *gapWatch) aged(id int64) bool {
	for _, s := range g.sightings {
		if s.top > id {
			return g.now().Sub(s.at) >= g.lag
		}
	}
	return false
}

// prober asks whether any offset of [from, to] can still commit.
type prober func(ctx context.Context, from, to int64) (bool, error)

// mayPass decides whether the cursor may pass the missing offsets [from,
// to]: only when the last of them has been missing for the lag (the first
// were seen missing no later) and the probe finds that no transaction holds
// any of them. A rolled-back id passes a lag after it was first seen; an id
// still in an open transaction never passes, however long it is held.
func (g *gapWatch) mayPass(ctx context.Context, from, to int64, probe prober) (bool, error) {
	if !g.aged(to) {
		return false, nil
	}
	return probe(ctx, from, to)
}

// lockProbe is the prober inside tx: a locking read of the missing range
// with NOWAIT. A row that an open transaction inserted carries that
// transaction's lock until its COMMIT or ROLLBACK, so the read fails at once
// with a lock wait error (MariaDB 1205, MySQL 3572): held, wait. A row
// found has committed since the read: the next round takes it. No row at
// all: nothing in the range exists or is pending, and nothing can appear
// there later, because the database hands out each offset once, at the
// insert. Under READ COMMITTED the read takes no gap locks, so it never
// blocks a producer's insert.
func lockProbe(tx *sql.Tx, table string) prober {
	return func(ctx context.Context, from, to int64) (bool, error) {
		rows, err := tx.QueryContext(ctx, "SELECT `offset` FROM "+table+" WHERE `offset` BETWEEN ? AND ? FOR UPDATE NOWAIT", from, to)
		if isLockWait(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("probe offsets %d..%d: %w", from, to, err)
		}
		defer rows.Close()
		found := rows.Next()
		if err := rows.Err(); isLockWait(err) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("probe offsets %d..%d: %w", from, to, err)
		}
		return !found, nil
	}
}

// isLockWait tells whether err is a lock wait answered at once (NOWAIT) or
// timed out: the statement was rolled back, the transaction goes on.
func isLockWait(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1205 || me.Number == 3572)
}
