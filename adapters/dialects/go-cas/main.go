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
	o, err := readOptions(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-cas: bad configuration: %v\n", err)
		os.Exit(2)
	}
	db, err := sql.Open("mysql", o.mysqlDSN)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-cas: bad configuration: OUTBOX_MYSQL_DSN: %v\n", err)
		os.Exit(2)
	}
	ro, err := redis.ParseURL(o.redisURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-cas: bad configuration: OUTBOX_REDIS_URL: %v\n", err)
		os.Exit(2)
	}
	ro.ReadTimeout, ro.WriteTimeout = o.publishTimeout, o.publishTimeout
	rdb := redis.NewClient(ro)
	e := &engine{o: o, db: db, rdb: rdb, add: redis.NewScript(addScript), lg: log.New(os.Stderr, "[go-cas "+o.instanceID+"] ", log.Lmicroseconds)}

	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	e.learnWidth(context.Background())
	e.lg.Printf("up (batch %d, lease %s, plant %q)", o.batch, o.lease, o.bug)
	e.serve(term)
	_ = rdb.Close()
	_ = db.Close()
	e.lg.Printf("down")
}

// serve runs rounds until a signal arrives; the round in progress always
// ends before serve returns.
func (e *engine) serve(term <-chan os.Signal) {
	tick := time.NewTicker(e.o.poll)
	defer tick.Stop()
	for {
		n := e.round(context.Background())
		select {
		case <-term:
			return
		default:
		}
		if n == e.o.batch {
			continue
		}
		select {
		case <-term:
			return
		case <-tick.C:
		}
	}
}
