// Package refadapter is the built-in adapter for the reference dispatcher
// (reference/cmd/dispatcher): it builds the binary once per work directory,
// starts it with the contract's environment, and declares every capability
// of the contract.
package refadapter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Package is the reference dispatcher's main package.
const Package = "github.com/outboxchaos/outboxchaos/reference/cmd/dispatcher"

var _ supervisor.Adapter = (*Adapter)(nil)

// Options configure the adapter. The zero value builds the reference
// dispatcher with the go command on PATH from the current directory, which
// must be inside this module.
type Options struct {
	// Name names the dispatcher in reports; default "reference".
	Name string
	// Package is the main package to build; default Package. A dispatcher
	// built from this module with the reference's contract (a mutant, say)
	// reuses the adapter by naming its own package.
	Package string
	// Go is the go command; default "go" found on PATH.
	Go string
	// ModuleDir is the directory go build runs in; default the current one.
	ModuleDir string
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "reference"
	}
	if o.Package == "" {
		o.Package = Package
	}
	if o.Go == "" {
		o.Go = "go"
	}
	if o.ModuleDir == "" {
		o.ModuleDir = moduleRoot()
	}
	return o
}

// moduleRoot finds the outboxchaos checkout the dispatcher is built from:
// the current directory when it is inside it, else the checkout this binary
// was compiled from (so the CLI also works when started elsewhere). It is ""
// when neither is found; go build then says what is missing.
func moduleRoot() string {
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if isThisModule(dir) {
				return dir
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if dir := filepath.Dir(filepath.Dir(filepath.Dir(file))); isThisModule(dir) {
			return dir
		}
	}
	return ""
}

func isThisModule(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && strings.HasPrefix(string(b), "module github.com/outboxchaos/outboxchaos\n")
}

// Validate checks the options; it does not build anything.
func (o Options) Validate() error {
	o = o.withDefaults()
	if strings.ContainsAny(o.Package, " \t") || strings.HasSuffix(o.Package, "/") {
		return fmt.Errorf("reference adapter: package %q: give a main package import path", o.Package)
	}
	if _, err := exec.LookPath(o.Go); err != nil {
		return fmt.Errorf("reference adapter: go command %q not found: install Go or set Options.Go: %w", o.Go, err)
	}
	if o.ModuleDir != "" {
		if st, err := os.Stat(o.ModuleDir); err != nil || !st.IsDir() {
			return fmt.Errorf("reference adapter: module dir %q is not a directory", o.ModuleDir)
		}
	}
	return nil
}

// Adapter runs the reference dispatcher.
type Adapter struct {
	opts Options

	mu      sync.Mutex
	bin     string
	workDir string
}

// New returns the reference adapter with default options. A missing go
// command is reported by Prepare.
func New() *Adapter { return &Adapter{opts: Options{}.withDefaults()} }

// NewWithOptions returns an adapter with validated options.
func NewWithOptions(opts Options) (*Adapter, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Adapter{opts: opts.withDefaults()}, nil
}

// Name is the dispatcher's name in reports.
func (a *Adapter) Name() string { return a.opts.Name }

// Schema is the contract's reference schema.
func (a *Adapter) Schema() schema.Mapping { return schema.Reference() }

// Capabilities: every tuning variable, crash points, graceful SIGTERM, and
// a clock the harness can skew (built with the time.Now overlay).
func (a *Adapter) Capabilities() supervisor.Capabilities {
	return supervisor.Capabilities{Tuning: supervisor.TuningVariables(), CrashPoints: true, GracefulTerm: true, Clock: clockskew.GoOverlay}
}

// Conventions declares how the reference gives rows back: a release (on
// SIGTERM) and a lease recovery both leave last_error as it was, while a
// transient failure always writes a new one ("attempt n of m: ..."). The
// checkers use this only where the history cannot tell a release from a
// retry without backoff (harness/check doc.go). The mutants, built on a base
// with the same habits, inherit it.
func (a *Adapter) Conventions() history.Conventions {
	return history.Conventions{ReleaseKeepsError: true, RecoveryKeepsError: true}
}

// Binary returns the built binary's path (empty before Prepare).
func (a *Adapter) Binary() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bin
}

// Spec starts the binary in the work directory with the harness's
// environment (minus any OUTBOX_* of its own) plus the contract variables.
func (a *Adapter) Spec(inst supervisor.Instance) (supervisor.Spec, error) {
	a.mu.Lock()
	bin, dir := a.bin, a.workDir
	a.mu.Unlock()
	if bin == "" {
		return supervisor.Spec{}, errors.New("reference adapter: Prepare has not run: build the dispatcher first")
	}
	return supervisor.Spec{Path: bin, Dir: dir, Env: supervisor.HarnessEnviron(inst.Env)}, nil
}

// Prepare builds the package into <workDir>/bin/<last path element>
// ("dispatcher" for the reference). A binary this process already built
// for the same work directory and package is reused while it exists.
func (a *Adapter) Prepare(ctx context.Context, workDir string) error {
	if err := a.opts.Validate(); err != nil {
		return err
	}
	abs, err := filepath.Abs(workDir)
	if err != nil {
		return fmt.Errorf("reference adapter: work dir %q: %w", workDir, err)
	}
	bin := filepath.Join(abs, "bin", path.Base(a.opts.Package))
	if err := builds.build(ctx, a.opts, bin); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bin, a.workDir = bin, abs
	return nil
}
