package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	s, err := readSettings(os.Getenv)
	if err != nil {
		fail(err)
	}
	db, err := openOutbox(s)
	if err != nil {
		fail(err)
	}
	qs, err := openQueues(s)
	if err != nil {
		fail(err)
	}
	lg := log.New(os.Stderr, "go-pgskip "+s.me+" ", log.LstdFlags|log.Lmicroseconds)
	r := &relay{s: s, db: db, queues: qs, log: lg}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	lg.Printf("relaying (batch %d, lease %s, max attempts %d, plant %q)", s.batch, s.lease, s.maxAttempts, s.bug)
	r.loop(signals)
	_ = qs.rdb.Close()
	db.pool.Close()
	lg.Printf("stopped")
}

// fail ends the process at once with one line saying what to fix.
func fail(err error) {
	fmt.Fprintf(os.Stderr, "go-pgskip: configuration: %v\n", err)
	os.Exit(2)
}

// loop runs rounds until a signal: the next at once when the batch was
// full, else after the poll interval. The round under way when the signal
// comes is finished (a delivery is settled; a claim not yet delivered is
// given back), then loop returns.
func (r *relay) loop(signals <-chan os.Signal) {
	stop := make(chan struct{})
	go func() {
		<-signals
		r.stopping.Store(true)
		close(stop)
	}()
	ctx := context.Background() // a stop never cuts a round short
	for !r.stopping.Load() {
		if r.round(ctx) == r.s.batch {
			continue
		}
		select {
		case <-stop:
		case <-time.After(r.s.poll):
		}
	}
}
