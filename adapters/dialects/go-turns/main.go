package main

import (
	"database/sql"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

func main() {
	cfg, err := loadSettings(os.Getenv)
	if err != nil {
		configError(err)
	}
	db, err := sql.Open("mysql", cfg.mysqlDSN)
	if err != nil {
		configError(fmt.Errorf("OUTBOX_MYSQL_DSN: %w", err))
	}
	opts, err := redis.ParseURL(cfg.redisURL)
	if err != nil {
		configError(fmt.Errorf("OUTBOX_REDIS_URL: %w", err))
	}
	// Every Redis round trip is bounded by the queue operation timeout,
	// and none is retried by the client: the turn decides what a failed
	// add means.
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = cfg.queueOpTimeout, cfg.queueOpTimeout, cfg.queueOpTimeout
	opts.MaxRetries = -1
	rdb := redis.NewClient(opts)
	d := &dispatcher{
		cfg: cfg, db: db, rdb: rdb,
		lock: turnLock{rdb: rdb, key: lockKey(cfg.prefix), ttl: cfg.queueOpTimeout},
		log:  log.New(os.Stderr, "go-turns "+cfg.instance+": ", log.LstdFlags|log.Lmicroseconds),
	}
	stop := make(chan struct{})
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		s := <-signals
		d.log.Printf("%s: finishing the turn in progress, then exiting", s)
		close(stop)
	}()
	d.log.Printf("started: batch %d every %s, lease %s, %d attempts, plant %q",
		cfg.batch, cfg.interval, cfg.lease, cfg.maxAttempts, os.Getenv("OUTBOXCHAOS_PLANT"))
	d.serve(stop)
	_ = rdb.Close()
	_ = db.Close()
	d.log.Print("stopped")
}

// configError ends the process as the contract says: exit 2, one line.
func configError(err error) {
	fmt.Fprintf(os.Stderr, "go-turns: bad configuration: %v\n", err)
	os.Exit(2)
}
