package roomservice

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// Serve opens MySQL and Redis, runs the worker until ctx ends, then shuts
// down in the guide's order: stop scanning, wait for the worker, and only
// then close Redis and MySQL (so the last record can still be marked).
func Serve(ctx context.Context, cfg Config, logOut io.Writer) error {
	log := slog.New(slog.NewTextHandler(logOut, nil))
	db, err := openMySQL(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	ropts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("%s: %w", EnvRedisURL, err)
	}
	ropts.MaxRetries = -1 // a failed add is the record's failure, retried by the worker
	ropts.DialTimeout, ropts.ReadTimeout, ropts.WriteTimeout = cfg.PublishTimeout, cfg.PublishTimeout, cfg.PublishTimeout
	rdb := redis.NewClient(ropts)
	defer rdb.Close()

	var wg sync.WaitGroup
	if cfg.Enabled {
		w, err := NewWorker(cfg, db, rdb, log)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Run(ctx)
		}()
	}
	log.Info("room outbox worker started", "node_id", cfg.NodeID, "enabled", cfg.Enabled,
		"poll_interval", cfg.PollInterval, "batch_size", cfg.BatchSize, "retry_strategy", RetryFixedInterval,
		"retry_interval", cfg.RetryInterval, "max_retries", cfg.MaxRetries)
	<-ctx.Done()
	wg.Wait()
	log.Info("room outbox worker stopped", "node_id", cfg.NodeID)
	return nil
}

func openMySQL(cfg Config) (*sql.DB, error) {
	mc, err := mysql.ParseDSN(cfg.MySQLDSN)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvMySQLDSN, err)
	}
	mc.ParseTime = true
	if mc.Timeout == 0 {
		mc.Timeout = cfg.LockTTL
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvMySQLDSN, err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(4)
	return db, nil
}
