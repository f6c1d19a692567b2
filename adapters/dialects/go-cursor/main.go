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

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

func main() {
	c, err := loadConfig(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-cursor: bad configuration: %v\n", err)
		os.Exit(2)
	}
	r, closeAll, err := open(c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-cursor: bad configuration: %v\n", err)
		os.Exit(2)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	r.lg.Printf("up: group %s, batch %d, poll %s, gap lag %s, plant %q", c.group, c.batch, c.poll, c.gapLag, c.plant)
	r.serve(stop)
	closeAll()
	r.lg.Printf("down")
}

// open checks the DSN and the Redis URL and opens both clients.
func open(c config) (*relay, func(), error) {
	if _, err := mysql.ParseDSN(c.dsn); err != nil {
		return nil, nil, fmt.Errorf("OUTBOX_MYSQL_DSN: %w", err)
	}
	ro, err := redis.ParseURL(c.redisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("OUTBOX_REDIS_URL: %w", err)
	}
	db, err := sql.Open("mysql", c.dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("OUTBOX_MYSQL_DSN: %w", err)
	}
	ro.ReadTimeout, ro.WriteTimeout = c.publishTimeout, c.publishTimeout
	rdb := redis.NewClient(ro)
	r := &relay{c: c, db: db, pub: newPublisher(rdb, c.prefix, c.publishTimeout),
		gaps: newGapWatch(c.gapLag, time.Now),
		lg:   log.New(os.Stderr, "[go-cursor "+c.instance+"] ", log.Lmicroseconds)}
	return r, func() { _ = rdb.Close(); _ = db.Close() }, nil
}

// serve takes turns until a signal comes; the turn in progress always ends
// (published and acked, or rolled back) before it returns. A full batch
// goes again at once; otherwise it waits a poll interval, and after a
// failure twice as long as after the last one, up to a second.
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
		if !r.wait(stop, pause) {
			return
		}
	}
}

// wait sleeps d, or returns false at once when a signal has come.
func (r *relay) wait(stop <-chan os.Signal, d time.Duration) bool {
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
