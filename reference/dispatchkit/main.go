package dispatchkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Runner is a dispatcher as Main drives it.
type Runner interface {
	// Run dispatches until ctx is cancelled, then stops gracefully.
	Run(ctx context.Context) error
}

// configError marks an error as the configuration's fault: exit code 2.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// ConfigError marks err as a configuration error, so that Main exits with
// code 2 for it. A nil err stays nil.
func ConfigError(err error) error {
	if err == nil {
		return nil
	}
	return configError{err}
}

// Main builds a dispatcher from the environment with build and runs it until SIGTERM or SIGINT,
// after which it stops gracefully; a second signal gets the default action
// (terminate at once). It returns the exit code: 0 after a graceful stop, 2
// when build fails with a ConfigError, 1 on any other error, each error
// printed as one line "<prog>: <error>" on stderr.
func Main(prog string, stderr io.Writer, environ []string, build func(environ []string) (Runner, error)) int {
	d, err := build(environ)
	if err != nil {
		var ce configError
		if errors.As(err, &ce) {
			return fail(stderr, prog, 2, err)
		}
		return fail(stderr, prog, 1, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal gets the default action: terminate at once
	}()
	if err := d.Run(ctx); err != nil {
		return fail(stderr, prog, 1, err)
	}
	return 0
}

// Exit is Main on the process's environment and stderr, ending the process
// with Main's code.
func Exit(prog string, build func(environ []string) (Runner, error)) {
	os.Exit(Main(prog, os.Stderr, os.Environ(), build))
}

// fail prints err as one line on stderr and returns code.
func fail(stderr io.Writer, prog string, code int, err error) int {
	line := strings.NewReplacer("\r", " ", "\n", " ").Replace(err.Error())
	fmt.Fprintf(stderr, "%s: %s\n", prog, line)
	return code
}
