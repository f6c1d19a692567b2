package localenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	defaultStartTimeout = 60 * time.Second
	defaultStopTimeout  = 30 * time.Second
	pollInterval        = 50 * time.Millisecond
	maxPingAttempt      = 2 * time.Second
	bindRetryDelay      = 200 * time.Millisecond
	logTailLines        = 25
)

// bindRetryWindow is how long Start retries a busy port (a variable so
// tests can shorten it).
var bindRetryWindow = 10 * time.Second

// serverSpec describes how to run one kind of server.
type serverSpec struct {
	kind   string   // "mariadb", "redis" or "postgres", for messages
	bin    string   // absolute path of the server binary
	dir    string   // the server's temporary directory
	stdout string   // file receiving stdout and stderr
	logs   []string // files whose tails explain a failed start
	args   func(port int) []string
	ping   func(ctx context.Context, addr string) error
	// cred runs the server as another user (nil: as this process).
	cred *syscall.Credential
	// stopSignal asks the server to shut down (0: SIGTERM).
	stopSignal syscall.Signal
}

// instance is the lifecycle shared by the servers: start on a port
// with bind retries, wait until ready, kill, stop, close.
type instance struct {
	serverSpec
	mu       sync.Mutex
	port     int
	autoPort bool // the port was chosen here: a first start may move it
	started  bool // a start has succeeded once
	p        *proc
	closed   bool
}

func newInstance(spec serverSpec, port int) (*instance, error) {
	in := &instance{serverSpec: spec, port: port}
	if port == 0 {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		in.port, in.autoPort = p, true
	}
	return in, nil
}

func (in *instance) addr() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return "127.0.0.1:" + strconv.Itoa(in.port)
}

func (in *instance) getPort() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.port
}

// start launches the server unless it runs already and waits until it
// answers. Without a deadline on ctx it waits at most 60 s.
func (in *instance) start(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return fmt.Errorf("start %s: server was closed", in.kind)
	}
	if in.p != nil && !in.p.exited() {
		return nil
	}
	ctx, cancel := withDefaultTimeout(ctx, defaultStartTimeout)
	defer cancel()
	var firstBindFailure time.Time
	for {
		err := in.launch(ctx)
		if err == nil {
			in.started = true
			return nil
		}
		var bind *bindError
		if !errors.As(err, &bind) || ctx.Err() != nil {
			return err
		}
		if firstBindFailure.IsZero() {
			firstBindFailure = time.Now()
		} else if time.Since(firstBindFailure) > bindRetryWindow {
			return fmt.Errorf("port %d stayed busy for %v: %w", in.port, bindRetryWindow, err)
		}
		if in.autoPort && !in.started {
			// Someone took the free port between choosing and binding.
			p, perr := freePort()
			if perr != nil {
				return errors.Join(err, perr)
			}
			in.port = p
		}
		if !sleepCtx(ctx, bindRetryDelay) {
			return err
		}
	}
}

// bindError marks a start that failed because the port was in use.
type bindError struct{ err error }

func (b *bindError) Error() string { return b.err.Error() }
func (b *bindError) Unwrap() error { return b.err }

// launch runs the server once and waits for readiness; on failure the
// process is killed and the error carries the tail of its logs.
func (in *instance) launch(ctx context.Context) error {
	offsets := logOffsets(in.logs)
	p, err := spawnAs(in.bin, in.args(in.port), in.dir, in.stdout, in.cred)
	if err != nil {
		return fmt.Errorf("start %s: %w", in.kind, err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(in.port)
	if err := waitReady(ctx, p, addr, in.ping); err != nil {
		_ = p.kill()
		tail := logTails(in.logs, offsets)
		err = fmt.Errorf("start %s (%s) on %s: %w\n%s", in.kind, in.bin, addr, err, tail)
		if strings.Contains(tail, "Address already in use") {
			return &bindError{err}
		}
		return err
	}
	in.p = p
	return nil
}

// waitReady pings addr until it answers, the process exits or ctx ends.
func waitReady(ctx context.Context, p *proc, addr string, ping func(context.Context, string) error) error {
	var last error
	for {
		attempt, cancel := context.WithTimeout(ctx, maxPingAttempt)
		last = ping(attempt, addr)
		cancel()
		if last == nil && !p.exited() {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("server %s before it was ready", p.exitDescription())
		case <-ctx.Done():
			return fmt.Errorf("not ready before the deadline (last ping: %v): %w", last, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

// kill SIGKILLs the server and waits for it to exit; the data is kept.
func (in *instance) kill() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.p == nil {
		return nil
	}
	err := in.p.kill()
	in.p = nil
	if err != nil {
		return fmt.Errorf("kill %s: %w", in.kind, err)
	}
	return nil
}

// stop sends the stop signal and waits; SIGKILL follows when ctx ends (or
// after 30 s without a deadline).
func (in *instance) stop(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.p == nil {
		return nil
	}
	ctx, cancel := withDefaultTimeout(ctx, defaultStopTimeout)
	defer cancel()
	_, err := in.p.terminate(ctx, in.stopSignal)
	if in.p.exited() {
		in.p = nil
	}
	if err != nil {
		return fmt.Errorf("stop %s: %w", in.kind, err)
	}
	return nil
}

// server is the lifecycle MariaDB, Redis and PostgreSQL share: one local
// process on a port of its own, with a temporary directory.
type server struct{ in *instance }

// Addr is "127.0.0.1:PORT".
func (s server) Addr() string { return s.in.addr() }

// Port is the TCP port; it stays the same across Kill/Stop and Start.
func (s server) Port() int { return s.in.getPort() }

// Dir is the server's temporary directory (its data and log).
func (s server) Dir() string { return s.in.dir }

// Pid is the process id of the running server, 0 when it is not running.
func (s server) Pid() int { return s.in.pid() }

// Kill sends SIGKILL to the server and every process it forked, and waits
// for them to exit; its files (MariaDB's and PostgreSQL's data, Redis's
// append-only file with Persistence) are kept.
func (s server) Kill() error { return s.in.kill() }

// Stop shuts the server down (SIGTERM; SIGINT, the fast shutdown, for
// PostgreSQL), falling back to SIGKILL when ctx ends (after 30 s without a
// deadline); its files are kept.
func (s server) Stop(ctx context.Context) error { return s.in.stop(ctx) }

// Start runs the server again after Kill or Stop, on the same port with the
// same files, and waits until it answers. It does nothing when it runs.
func (s server) Start(ctx context.Context) error { return s.in.start(ctx) }

// Restart is Stop then Start.
func (s server) Restart(ctx context.Context) error { return s.in.restart(ctx) }

// Close kills the server and removes its temporary directory; idempotent.
func (s server) Close() error { return s.in.close() }

// launch makes srv's instance of spec in dir (removing dir when that
// fails), starts it, and has identify read the running server's version. A
// server that does not come up is closed, its directory removed with it.
func launch(ctx context.Context, srv *server, dir string, spec serverSpec, port int, identify func(context.Context) error) error {
	in, err := newInstance(spec, port)
	if err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	srv.in = in
	if err := in.start(ctx); err != nil {
		_ = in.close()
		return err
	}
	if err := identify(ctx); err != nil {
		_ = in.close()
		return err
	}
	return nil
}

// restart stops the server gracefully and starts it again.
func (in *instance) restart(ctx context.Context) error {
	if err := in.stop(ctx); err != nil {
		return err
	}
	return in.start(ctx)
}

// close kills the server and removes its directory; later calls do nothing.
func (in *instance) close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return nil
	}
	in.closed = true
	var errs []error
	if in.p != nil {
		errs = append(errs, in.p.kill())
		in.p = nil
	}
	if err := os.RemoveAll(in.dir); err != nil {
		errs = append(errs, fmt.Errorf("remove %s: %w", in.dir, err))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close %s: %w", in.kind, err)
	}
	return nil
}

// pid returns the pid of the running server, 0 when none runs.
func (in *instance) pid() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.p == nil || in.p.exited() {
		return 0
	}
	return in.p.cmd.Process.Pid
}

func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// logOffsets records the current size of each log so a failure report shows
// only what the last launch wrote.
func logOffsets(paths []string) []int64 {
	offs := make([]int64, len(paths))
	for i, p := range paths {
		if st, err := os.Stat(p); err == nil {
			offs[i] = st.Size()
		}
	}
	return offs
}

// logTails returns the last lines each log gained since offsets.
func logTails(paths []string, offsets []int64) string {
	var b strings.Builder
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || int64(len(data)) <= offsets[i] {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data[offsets[i]:]), "\n"), "\n")
		if len(lines) > logTailLines {
			lines = lines[len(lines)-logTailLines:]
		}
		fmt.Fprintf(&b, "--- last lines of %s ---\n%s\n", filepath.Base(p), strings.Join(lines, "\n"))
	}
	if b.Len() == 0 {
		return "(the server wrote no log)"
	}
	return b.String()
}
