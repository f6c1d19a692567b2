// Command dispatcher is the reference outbox dispatcher: it moves
// outbox_events rows to BullMQ queues, as package reference describes.
//
// It reads its configuration from OUTBOX_* environment variables (see
// reference.ConfigFromEnv). Exit codes: 0 after a graceful stop (SIGTERM or
// SIGINT; a second signal terminates at once), 2 on a configuration error
// (one line on stderr), 1 on any other error.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/outboxchaos/outboxchaos/reference"
)

func main() {
	os.Exit(run())
}

func run() int {
	cfg, err := reference.ConfigFromEnv(os.Environ())
	if err != nil {
		return fail(2, err)
	}
	d, err := reference.New(cfg)
	if err != nil {
		if reference.IsConfigError(err) {
			return fail(2, err)
		}
		return fail(1, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal gets the default action: terminate at once
	}()
	if err := d.Run(ctx); err != nil {
		return fail(1, err)
	}
	return 0
}

// fail prints err as one line on stderr and returns code.
func fail(code int, err error) int {
	line := strings.NewReplacer("\r", " ", "\n", " ").Replace(err.Error())
	fmt.Fprintf(os.Stderr, "dispatcher: %s\n", line)
	return code
}
