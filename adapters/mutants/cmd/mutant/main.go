// Command mutant is the mutant dispatcher: the correct base dispatcher of
// package adapters/mutants/dispatcher, with the bug named by
// OUTBOXCHAOS_MUTANT or the comparison design named by OUTBOXCHAOS_MODE.
//
// It reads the contract's OUTBOX_* variables like the reference dispatcher.
// Exit codes: 0 after a graceful stop (SIGTERM or SIGINT), 2 on a
// configuration error, an unknown mutant or mode included (one line on
// stderr naming the valid ones), 1 on any other error.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/outboxchaos/outboxchaos/adapters/mutants/dispatcher"
)

func main() {
	os.Exit(run())
}

func run() int {
	cfg, err := dispatcher.ConfigFromEnv(os.Environ())
	if err != nil {
		return fail(2, err)
	}
	d, err := dispatcher.New(cfg)
	if err != nil {
		return fail(1, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := d.Run(ctx); err != nil {
		return fail(1, err)
	}
	return 0
}

// fail prints err as one line on stderr and returns code.
func fail(code int, err error) int {
	line := strings.NewReplacer("\r", " ", "\n", " ").Replace(err.Error())
	fmt.Fprintf(os.Stderr, "mutant: %s\n", line)
	return code
}
