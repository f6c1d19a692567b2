package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

func main() {
	s, err := loadSettings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-reason: config: "+err.Error())
		os.Exit(2)
	}
	if err := run(s); err != nil {
		fmt.Fprintln(os.Stderr, "go-reason: "+err.Error())
		os.Exit(1)
	}
}

func run(s settings) error {
	db, err := sql.Open("mysql", s.dsn)
	if err != nil {
		return fmt.Errorf("open mysql: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(4)
	opt, err := redis.ParseURL(s.redisURL)
	if err != nil {
		return fmt.Errorf("parse OUTBOX_REDIS_URL: %w", err)
	}
	opt.ReadTimeout, opt.WriteTimeout = s.publishTimeout, s.publishTimeout
	rdb := redis.NewClient(opt)
	defer rdb.Close()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	logger := log.New(os.Stdout, "go-reason "+s.instance+" ", log.LstdFlags|log.Lmicroseconds)
	d := &dispatcher{s: s, db: db, rdb: rdb, log: logger}
	logger.Printf("started: batch %d, lease %s, poll %s, plant %q", s.batch, s.lease, s.poll, s.plant)
	d.loop(ctx)
	logger.Printf("stopped")
	return nil
}

// loop polls until ctx ends. A batch in flight is always finished (added and
// finalized, or given back as a transient failure) before loop returns: the
// work of one batch is bounded by the publish timeout.
func (d *dispatcher) loop(ctx context.Context) {
	nextSweep := time.Now()
	for ctx.Err() == nil {
		if !time.Now().Before(nextSweep) {
			d.sweep()
			nextSweep = time.Now().Add(d.sweepEvery())
		}
		n, err := d.round()
		if err != nil {
			d.log.Printf("round: %v", err)
		}
		if n == d.s.batch && err == nil {
			continue // a full batch: more are probably waiting
		}
		select {
		case <-ctx.Done():
		case <-time.After(d.s.poll):
		}
	}
}

// sweepEvery is the recovery sweep's period: a quarter of the lease, at
// least one poll interval.
func (d *dispatcher) sweepEvery() time.Duration {
	return max(d.s.lease/4, d.s.poll)
}
