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

// relay is one instance: it claims, publishes and settles in passes.
type relay struct {
	cfg settings
	db  *sql.DB
	rdb *redis.Client
	log *log.Logger
}

func main() {
	cfg, err := readSettings(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-timestamps: %v\n", err)
		os.Exit(2)
	}
	r, err := open(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-timestamps: %v\n", err)
		os.Exit(2)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	r.log.Printf("started: batch %d, lease %s, max attempts %d, plant %q", cfg.batch, cfg.lease, cfg.maxAttempts, cfg.plant)
	r.serve(stop)
	_ = r.rdb.Close()
	_ = r.db.Close()
	r.log.Printf("stopped")
}

// open makes the relay's MySQL pool and Redis client; neither connects yet.
func open(cfg settings) (*relay, error) {
	dc, err := mysql.ParseDSN(cfg.dsn)
	if err != nil {
		return nil, fmt.Errorf("OUTBOX_MYSQL_DSN: %w", err)
	}
	dc.Timeout = cfg.publishTimeout // dial; statements are bounded by their context
	conn, err := mysql.NewConnector(dc)
	if err != nil {
		return nil, fmt.Errorf("OUTBOX_MYSQL_DSN: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	ro, err := redis.ParseURL(cfg.redisURL)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("OUTBOX_REDIS_URL: %w", err)
	}
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout = cfg.publishTimeout, cfg.publishTimeout, cfg.publishTimeout
	ro.MaxRetries = -1 // one XADD per attempt: a failed one is the attempt's failure
	return &relay{cfg: cfg, db: db, rdb: redis.NewClient(ro),
		log: log.New(os.Stderr, "[go-timestamps "+cfg.instance+"] ", log.Lmicroseconds)}, nil
}

// serve runs passes until a signal arrives: a full batch runs the next pass
// at once, anything less waits a poll interval. A pass under way when the
// signal comes is finished (published and settled) before serve returns,
// so a graceful stop leaves nothing claimed.
func (r *relay) serve(stop <-chan os.Signal) {
	wait := time.NewTimer(0)
	<-wait.C
	for {
		n := r.pass()
		select {
		case <-stop:
			return
		default:
		}
		if n == r.cfg.batch {
			continue
		}
		wait.Reset(r.cfg.poll)
		select {
		case <-stop:
			wait.Stop()
			return
		case <-wait.C:
		}
	}
}

// pass claims a batch, publishes it and settles it, all within one lease:
// past it another relay may hold the rows, and the fence turns our writes
// away. It returns how many rows it claimed.
func (r *relay) pass() int {
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.lease)
	defer cancel()
	batch, err := r.claim(ctx)
	if err != nil {
		r.log.Print(err)
		return 0
	}
	if len(batch) == 0 {
		return 0
	}
	outs := r.publish(ctx, batch)
	lost, err := r.settle(ctx, batch, outs)
	switch {
	case err != nil:
		r.log.Printf("%v (the %d claims run out with their lease)", err, len(batch))
	case lost > 0:
		r.log.Printf("settle: %d of %d rows were claimed again by another relay after our lease ran out", lost, len(batch))
	}
	if failed := countFailed(outs); failed > 0 {
		r.log.Printf("publish: %d of %d failed (first: %v)", failed, len(batch), firstErr(outs))
	}
	return len(batch)
}

func countFailed(outs []outcome) int {
	n := 0
	for _, o := range outs {
		if o.err != nil {
			n++
		}
	}
	return n
}

func firstErr(outs []outcome) error {
	for _, o := range outs {
		if o.err != nil {
			return o.err
		}
	}
	return nil
}
