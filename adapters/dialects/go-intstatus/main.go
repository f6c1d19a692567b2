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
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		configError(err)
	}
	db, err := openDB(cfg)
	if err != nil {
		configError(err)
	}
	rdb, err := openRedis(cfg)
	if err != nil {
		configError(err)
	}
	lg := log.New(os.Stderr, "go-intstatus "+cfg.owner+" ", log.LstdFlags|log.Lmicroseconds)
	r := &relay{cfg: cfg, log: lg, store: &store{db: db, cfg: cfg, owner: cfg.owner},
		sink: &sink{rdb: rdb, script: redis.NewScript(publishLua), cfg: cfg}}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	lg.Printf("relaying (batch %d, lease %s, max tries %d, plant %q)", cfg.batch, cfg.lease, cfg.maxTries, cfg.plant)
	r.run(term)
	_ = rdb.Close()
	_ = db.Close()
	lg.Printf("stopped")
}

// configError ends the process with one line naming what to fix.
func configError(err error) {
	fmt.Fprintf(os.Stderr, "go-intstatus: configuration: %v\n", err)
	os.Exit(2)
}

// run loops until term: a round, then the next at once when the batch was
// full, else after the poll interval. The round in progress when term
// arrives ends first: what it published it settles, what it claimed but
// did not publish it releases.
func (r *relay) run(term <-chan os.Signal) {
	done := make(chan struct{})
	go func() {
		<-term
		r.stopping.Store(true)
		close(done)
	}()
	tick := time.NewTicker(r.cfg.poll)
	defer tick.Stop()
	for !r.stopping.Load() {
		if r.round(context.Background()) == r.cfg.batch {
			continue
		}
		select {
		case <-done:
		case <-tick.C:
		}
	}
}

// openDB opens the outbox database; the pool is small, a round uses one
// connection at a time.
func openDB(cfg config) (*sql.DB, error) {
	mc, err := mysql.ParseDSN(cfg.mysqlDSN)
	if err != nil {
		return nil, fmt.Errorf("OUTBOX_MYSQL_DSN: %w", err)
	}
	mc.Timeout = cfg.dbTimeout()
	mc.InterpolateParams = true // one round trip a statement, no prepare
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("OUTBOX_MYSQL_DSN: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	return db, nil
}

// openRedis opens Redis with every wait bounded by the publish timeout and
// no silent retries: a failed publish is the relay's to count.
func openRedis(cfg config) (*redis.Client, error) {
	o, err := redis.ParseURL(cfg.redisURL)
	if err != nil {
		return nil, fmt.Errorf("OUTBOX_REDIS_URL: %w", err)
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = cfg.publishTimeout, cfg.publishTimeout, cfg.publishTimeout
	o.MaxRetries = -1
	o.PoolSize = 4
	return redis.NewClient(o), nil
}
