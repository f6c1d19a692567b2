package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters"
)

// checkAdapter validates an --adapter argument as `doctor --adapter` does
// (a manifest is loaded and checked in full) and prints what it found.
// `init` validates its draft with it.
func checkAdapter(name string, w io.Writer) error {
	a, err := adapters.Open(name)
	if err != nil {
		return err
	}
	c := a.Capabilities()
	fmt.Fprintf(w, "adapter %s: ok (crash points %v, graceful SIGTERM %v, tuning %s)\n", a.Name(), c.CrashPoints, c.GracefulTerm, strings.Join(c.Tuning, ", "))
	fmt.Fprintf(w, "adapter %s: %s\n", a.Name(), clockAndOrdering(c))
	return nil
}
