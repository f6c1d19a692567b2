package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

func main() {
	c, err := parseConf(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-single: invalid configuration: "+err.Error())
		os.Exit(2)
	}
	db, err := sql.Open("mysql", c.DSN)
	if err == nil {
		var o *redis.Options
		if o, err = redis.ParseURL(c.Redis); err == nil {
			o.ReadTimeout, o.WriteTimeout = c.AddTimeout, c.AddTimeout
			s := &single{c: c, db: db, rdb: redis.NewClient(o), out: log.New(os.Stdout, c.Me+" ", log.Lmicroseconds)}
			s.run()
			_ = s.rdb.Close()
			_ = db.Close()
			return
		}
	}
	fmt.Fprintln(os.Stderr, "go-single: invalid configuration: "+err.Error())
	os.Exit(2)
}

// single dispatches one event at a time: each has its own claim
// transaction, its own add and its own finalize transaction.
type single struct {
	c    conf
	db   *sql.DB
	rdb  *redis.Client
	out  *log.Logger
	stop atomic.Bool

	width atomic.Int64 // last_error's width, read at its first refusal (fit.go)
}

func (s *single) run() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	wake := make(chan struct{})
	go func() { <-sig; s.stop.Store(true); close(wake) }()
	s.out.Printf("running (plant %q)", s.c.Plant)
	for !s.stop.Load() {
		s.recoverExpired()
		busy := false
		// While events keep coming, recovery still runs once per poll
		// interval: a busy instance must not starve a dead one's claims.
		for until := time.Now().Add(s.c.Poll); !s.stop.Load() && time.Now().Before(until); {
			did, err := s.one()
			if err != nil {
				s.out.Printf("event: %v", err)
			}
			if !did {
				break
			}
			busy = true
		}
		if !busy {
			select {
			case <-wake:
			case <-time.After(s.c.Poll):
			}
		}
	}
	s.out.Printf("SIGTERM: stopped between events, nothing held")
}

// recoverExpired hands back claims whose lease ran out, as they were.
func (s *single) recoverExpired() {
	if s.c.Plant == plantGlobalLock {
		return // the plant adopts processing rows instead (claim.go)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.c.Lease/2)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		s.out.Printf("recover: %v", err)
		return
	}
	defer tx.Rollback()
	if _, err = tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
		WHERE status = 'processing' AND locked_until < NOW(6)`); err == nil {
		err = tx.Commit()
	}
	if err != nil {
		s.out.Printf("recover: %v", err)
	}
}
