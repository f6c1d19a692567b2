package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

func main() {
	cfg, err := configFromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-nolock: %v\n", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stdout, nil)).With("instance", cfg.Instance)
	db, err := sql.Open("mysql", cfg.MySQLDSN)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-nolock: mysql: %v\n", err)
		os.Exit(2)
	}
	ropt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-nolock: OUTBOX_REDIS_URL: %v\n", err)
		os.Exit(2)
	}
	ropt.ReadTimeout, ropt.WriteTimeout = cfg.PublishTimeout, cfg.PublishTimeout
	w := &worker{cfg: cfg, db: db, rdb: redis.NewClient(ropt), log: log}
	defer db.Close()
	defer w.rdb.Close()

	stopping, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Info("started", "plant", cfg.Plant)
	for stopping.Err() == nil {
		w.recover()
		n := w.round(stopping)
		if n < cfg.BatchSize {
			select {
			case <-stopping.Done():
			case <-time.After(cfg.PollInterval):
			}
		}
	}
	log.Info("stopped")
}
