// Command mutant is the mutant dispatcher: the correct base dispatcher of
// package adapters/mutants/dispatcher, with the bug named by
// OUTBOXCHAOS_MUTANT or the comparison design named by OUTBOXCHAOS_MODE.
//
// It reads the contract's OUTBOX_* variables like the reference dispatcher.
// Exit codes: 0 after a graceful stop (SIGTERM or SIGINT), 2 on a
// configuration error, an unknown mutant or mode included (one line on
// stderr naming the valid ones), 1 on any other error; a second signal
// terminates at once (package reference/dispatchkit, Main).
package main

import (
	"github.com/outboxchaos/outboxchaos/adapters/mutants/dispatcher"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

func main() {
	dispatchkit.Exit("mutant", func(environ []string) (dispatchkit.Runner, error) { return dispatcher.FromEnv(environ) })
}
