package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

func main() {
	c, err := loadConfig(os.Getenv)
	if err == nil {
		err = run(c)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-pgcursor: bad configuration: %v\n", err)
		os.Exit(2)
	}
}

// run checks the URLs, then takes turns until SIGTERM or SIGINT.
func run(c config) error {
	cfg, err := pgx.ParseConfig(c.pgURL)
	if err != nil {
		return fmt.Errorf("OUTBOX_POSTGRES_URL: %w", err)
	}
	ro, err := redis.ParseURL(c.redisURL)
	if err != nil {
		return fmt.Errorf("OUTBOX_REDIS_URL: %w", err)
	}
	ro.ReadTimeout, ro.WriteTimeout = c.publishTimeout, c.publishTimeout
	rdb := redis.NewClient(ro)
	defer func() { _ = rdb.Close() }()
	r := &relay{c: c, cfg: cfg, pub: newPublisher(rdb, c.prefix, c.publishTimeout),
		lg: log.New(os.Stderr, "[go-pgcursor "+c.instance+"] ", log.Lmicroseconds)}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	r.lg.Printf("up: group %s, batch %d, poll %s, plant %q", c.group, c.batch, c.poll, c.plant)
	r.serve(stop)
	r.broken(nil)
	r.lg.Printf("down")
	return nil
}

// serve takes turns until a signal comes; the turn in progress always ends
// (published and acked, or rolled back) before it returns. A full batch
// goes again at once, an idle round waits a poll interval, a failed one
// twice as long as the last failure did, up to a second.
func (r *relay) serve(stop <-chan os.Signal) {
	pause := r.c.poll
	for {
		t, err := r.round(context.Background())
		switch {
		case err != nil:
			r.lg.Printf("turn: %v", err)
			pause = min(max(2*pause, r.c.poll), max(r.c.poll, time.Second))
		case t.full:
			pause = 0
		default:
			pause = r.c.poll
		}
		if !sleep(stop, pause) {
			return
		}
	}
}

// sleep waits d, or returns false as soon as a signal has come.
func sleep(stop <-chan os.Signal, d time.Duration) bool {
	select {
	case <-stop:
		return false
	default:
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-stop:
		return false
	case <-t.C:
		return true
	}
}
