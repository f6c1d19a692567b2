package main

import (
	"context"
	"database/sql"
	"log"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// dispatcher is one instance: it tries for a turn every interval and, when
// it gets one, dispatches one batch.
type dispatcher struct {
	cfg  settings
	db   *sql.DB
	rdb  *redis.Client
	lock turnLock
	mark highWaterMark // read only by the planted bug
	log  *log.Logger

	lastTrouble string // the last error logged by tryTurn, to log each once
}

// serve tries for a turn after every wait until stop is closed. A turn in
// progress always ends (its batch settled) before serve returns.
func (d *dispatcher) serve(stop <-chan struct{}) {
	wait := time.NewTimer(d.nextWait())
	defer wait.Stop()
	for {
		select {
		case <-stop:
			return
		case <-wait.C:
		}
		d.tryTurn()
		wait.Reset(d.nextWait())
	}
}

// nextWait is the interval, give or take half of it at random. With a
// fixed tick, instances started together keep their phases, and one whose
// tick falls just after another's finds the lock taken every time: it
// would never get a turn.
func (d *dispatcher) nextWait() time.Duration {
	return d.cfg.interval/2 + rand.N(d.cfg.interval)
}

// tryTurn takes the dispatch lock if it is free, runs one turn, and gives
// the lock back. The claim and the adds must end within the lease; a turn
// that outlasts the lock's TTL (the queue operation timeout, as in the
// seed) shares the table with the next holder's, which SKIP LOCKED keeps
// apart.
func (d *dispatcher) tryTurn() {
	ctx, cancel := context.WithTimeout(context.Background(), d.cfg.lease)
	defer cancel()
	token, err := d.lock.take(ctx)
	if err != nil {
		d.trouble(err)
		return
	}
	if token == "" {
		return // another instance's turn
	}
	defer d.giveBack(token)
	if err := d.turn(ctx); err != nil {
		d.trouble(err)
		return
	}
	d.lastTrouble = ""
}

func (d *dispatcher) giveBack(token string) {
	ctx, cancel := context.WithTimeout(context.Background(), d.cfg.queueOpTimeout)
	defer cancel()
	if err := d.lock.give(ctx, token); err != nil {
		d.log.Print(err)
	}
}

// turn claims a batch with its jobs, decides it, adds its jobs and
// settles it.
func (d *dispatcher) turn(ctx context.Context) error {
	token := newToken()
	evs, err := d.claim(ctx, token)
	if err != nil || len(evs) == 0 {
		return err
	}
	for _, ev := range evs {
		d.validate(ev)
	}
	d.enqueue(ctx, evs)
	d.settleClaim(token, evs)
	return nil
}

// settleClaim settles a claim, trying again while MySQL fails, for at most a
// lease. It runs on a context of its own: a settle that starts late is
// still fenced by the claim's token, and rows left unsettled are taken over
// once their lease has run out.
func (d *dispatcher) settleClaim(token string, evs []*event) {
	ctx, cancel := context.WithTimeout(context.Background(), d.cfg.lease)
	defer cancel()
	for {
		n, err := d.settle(ctx, token, evs)
		if err == nil {
			if n < len(evs) {
				d.log.Printf("settled %d of %d events; the others were taken over after their lease", n, len(evs))
			}
			return
		}
		d.log.Printf("%v (will try again)", err)
		select {
		case <-ctx.Done():
			d.log.Printf("gave up settling %d events: they stay claimed until their lease runs out", len(evs))
			return
		case <-time.After(d.cfg.interval):
		}
	}
}

// trouble logs err unless it is the one logged last.
func (d *dispatcher) trouble(err error) {
	if msg := err.Error(); msg != d.lastTrouble {
		d.lastTrouble = msg
		d.log.Print(msg)
	}
}
