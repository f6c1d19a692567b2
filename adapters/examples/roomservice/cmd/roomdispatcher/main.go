// Command roomdispatcher runs the room outbox compensation worker (package
// roomservice) until SIGTERM: it stops scanning, finishes the record in
// hand, releases the rest of its batch, then closes Redis and MySQL.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/outboxchaos/outboxchaos/adapters/examples/roomservice"
)

func main() {
	cfg, err := roomservice.ConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "roomdispatcher: config: %v\n", oneLine(err))
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := roomservice.Serve(ctx, cfg, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "roomdispatcher: %v\n", oneLine(err))
		os.Exit(1)
	}
}

func oneLine(err error) string {
	b := []byte(err.Error())
	for i, c := range b {
		if c == '\n' {
			b[i] = ';'
		}
	}
	return string(b)
}
