package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/sink"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

var _ supervisor.Adapter = (*Adapter)(nil)

// Adapter runs the dispatcher a manifest describes. Build it with Load.
type Adapter struct {
	path, dir    string // the manifest file and its directory, absolute
	name         string
	build        *command // nil: no build step
	start        command
	passContract bool
	env          []envEntry
	mapping      schema.Mapping
	caps         supervisor.Capabilities
	conv         history.Conventions
	prefix       string
	queues       []string
	sink         sink.Config
	delivery     string
	store        string           // "mysql" or "postgres"
	producer     *producerCommand // nil: the harness's own producer

	mu      sync.Mutex // held during Prepare
	workDir string     // set by Prepare
	built   map[string]bool
}

// Name is the manifest's name.
func (a *Adapter) Name() string { return a.name }

// Path is the manifest file, absolute.
func (a *Adapter) Path() string { return a.path }

// Schema is the manifest's schema mapping, with the DDL split into
// statements.
func (a *Adapter) Schema() schema.Mapping {
	m := a.mapping
	m.DDL = slices.Clone(m.DDL)
	m.OutboxStatus = maps.Clone(m.OutboxStatus)
	m.JobStatus = maps.Clone(m.JobStatus)
	return m
}

// Capabilities are the manifest's, checked by Load.
func (a *Adapter) Capabilities() supervisor.Capabilities {
	c := a.caps
	c.Tuning = slices.Clone(c.Tuning)
	return c
}

// Prefix is the BullMQ key prefix the manifest asks for ("" lets the harness
// choose). The harness passes it as OUTBOX_BULL_PREFIX.
func (a *Adapter) Prefix() string { return a.prefix }

// Queues is the queue allowlist the manifest asks for (empty lets the
// harness choose). The harness passes it as OUTBOX_QUEUES.
func (a *Adapter) Queues() []string { return slices.Clone(a.queues) }

// Prepare makes workDir (WORK_DIR) and runs the build step in it once per
// work directory for this Adapter, then checks that the start command
// (and the producer command, if any) exists.
func (a *Adapter) Prepare(ctx context.Context, workDir string) error {
	abs, err := filepath.Abs(workDir)
	if err != nil {
		return fmt.Errorf("manifest adapter %s: work dir %q: %w", a.name, workDir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("manifest adapter %s: work dir: %w", a.name, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	vars := map[string]string{VarWorkDir: abs, VarManifestDir: a.dir}
	if a.build != nil && !a.built[abs] {
		if err := a.runBuild(ctx, vars); err != nil {
			return err
		}
		if a.built == nil {
			a.built = map[string]bool{}
		}
		a.built[abs] = true
	}
	if err := checkProgram(a.start.program.expand(vars), a.start.dir); err != nil {
		return fmt.Errorf("manifest adapter %s: start.command in %s: %w (fix: %s)", a.name, a.path, err, programFix(a.start.program.expand(vars)))
	}
	if p := a.producer; p != nil {
		if err := checkProgram(p.program.expand(vars), p.dir); err != nil {
			return fmt.Errorf("manifest adapter %s: producer.command in %s: %w (fix: %s)", a.name, a.path, err, programFix(p.program.expand(vars)))
		}
	}
	a.workDir = abs
	return nil
}

func (a *Adapter) runBuild(ctx context.Context, vars map[string]string) error {
	prog, args := a.build.resolve(vars), a.build.expandArgs(vars)
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = a.build.dir
	cmd.Env = supervisor.HarnessEnviron(nil)
	if a.caps.Clock == clockskew.GoOverlay {
		env, err := withClockOverlay(ctx, cmd.Env, vars[VarWorkDir])
		if err != nil {
			return fmt.Errorf("manifest adapter %s: capabilities.clock go-overlay: %w", a.name, err)
		}
		cmd.Env = env
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("manifest adapter %s: build step (%s %s in %s) of %s: %w\n%s",
			a.name, prog, strings.Join(args, " "), a.build.dir, a.path, err, lastLines(out.String(), 30))
	}
	return nil
}

// Spec starts one instance: the start command with its args expanded, in
// its dir, with the harness's environment (minus any OUTBOX_* of its own),
// the contract variables when pass_contract_env is on, and start.env on top.
// A variable a template names but the instance lacks expands to "".
func (a *Adapter) Spec(inst supervisor.Instance) (supervisor.Spec, error) {
	a.mu.Lock()
	work := a.workDir
	a.mu.Unlock()
	if work == "" {
		return supervisor.Spec{}, errors.New("manifest adapter " + a.name + ": Prepare has not run: call it before starting instances")
	}
	vars := maps.Clone(inst.Env)
	if vars == nil {
		vars = map[string]string{}
	}
	vars[VarWorkDir], vars[VarManifestDir] = work, a.dir
	env := map[string]string{}
	if a.passContract {
		maps.Copy(env, inst.Env)
	}
	for _, e := range a.env {
		env[e.key] = e.value.expand(vars)
	}
	return supervisor.Spec{
		Path: a.start.resolve(vars),
		Args: a.start.expandArgs(vars),
		Dir:  a.start.dir,
		Env:  supervisor.HarnessEnviron(env),
	}, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// withClockOverlay adds the time.Now overlay (harness/clockskew) to the
// build's GOFLAGS, after any the harness's environment has.
func withClockOverlay(ctx context.Context, env []string, workDir string) ([]string, error) {
	ov, err := clockskew.Overlay(ctx, "go", workDir)
	if err != nil {
		return nil, err
	}
	flags := "-overlay=" + ov
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok && v != "" {
			flags = v + " " + flags
		}
	}
	return clockskew.Merge(env, []string{"GOFLAGS=" + flags}), nil
}
