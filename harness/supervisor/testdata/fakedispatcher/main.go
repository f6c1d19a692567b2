// Command fakedispatcher is a stand-in dispatcher for the supervisor's
// tests: a real process that honours the contract's signals and variables
// without touching MySQL or Redis.
//
//   - It prints "fake <OUTBOX_INSTANCE_ID> ready pid <pid>" on stdout once its
//     signal handling is installed, then a tick line every 100 ms.
//   - SIGTERM: prints "terminating" and exits 0, unless FAKE_IGNORE_TERM=1.
//   - OUTBOX_LEASE that is not a Go duration: prints a one-line config error
//     on stderr and exits 2.
//   - OUTBOX_FAILPOINTS holding "<name>=crash": prints
//     "failpoint <name>: crash" on stderr and SIGKILLs itself.
//   - FAKE_CHILD=1: starts a child (itself with FAKE_ROLE=child) that only
//     sleeps, and prints "child pid <pid>".
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if os.Getenv("FAKE_ROLE") == "child" {
		for {
			time.Sleep(time.Hour)
		}
	}
	id := os.Getenv("OUTBOX_INSTANCE_ID")
	if v := os.Getenv("OUTBOX_LEASE"); v != "" {
		if _, err := time.ParseDuration(v); err != nil {
			fmt.Fprintf(os.Stderr, "config: OUTBOX_LEASE %q is not a duration\n", v)
			os.Exit(2)
		}
	}
	terms := make(chan os.Signal, 1)
	if os.Getenv("FAKE_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	} else {
		signal.Notify(terms, syscall.SIGTERM)
	}
	if os.Getenv("FAKE_CHILD") == "1" {
		startChild()
	}
	fmt.Printf("fake %s ready pid %d\n", id, os.Getpid())
	crashAtFailpoint()
	loop(terms)
}

func startChild() {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "FAKE_ROLE=child")
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	fmt.Printf("child pid %d\n", cmd.Process.Pid)
}

func crashAtFailpoint() {
	for _, entry := range strings.Split(os.Getenv("OUTBOX_FAILPOINTS"), ";") {
		name, action, ok := strings.Cut(entry, "=")
		if ok && strings.HasPrefix(action, "crash") {
			fmt.Fprintf(os.Stderr, "failpoint %s: crash\n", name)
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
}

func loop(terms <-chan os.Signal) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-terms:
			fmt.Println("terminating")
			os.Exit(0)
		case <-tick.C:
			fmt.Printf("tick %d\n", n)
		}
	}
}
