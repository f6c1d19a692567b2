package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/reference"
)

// profileTopLines is how many lines of `go tool pprof -top` the report keeps.
const profileTopLines = 30

// profileShow keeps the dispatcher's own frames and its drivers' in the
// listing (cumulative), not the harness's.
const profileShow = `outboxchaos/reference|go-sql-driver|go-redis|database/sql`

// Profile is the evidence of what bounds one reference instance: the
// reference library driven in-process step by step (Claim, then Process,
// the two halves of its loop) on a saturation preload, with a CPU profile of
// the whole run and the wall time of each half.
type Profile struct {
	CPUFile string // the pprof CPU profile
	Events  int
	Batches int
	EPS     float64
	// ClaimTime and ProcessTime are the wall time spent in Claim (the claim
	// transaction) and in Process (jobs query, pipelined add, finalize
	// transaction), summed over batches.
	ClaimTime   time.Duration
	ProcessTime time.Duration
	// CPUTime is the harness process's CPU over the run: the dispatcher's
	// share of the cores.
	CPUTime time.Duration
	Top     string // `go tool pprof -top` of CPUFile, first lines
}

func (r *runner) runProfile(ctx context.Context) (p Profile, err error) {
	c, err := r.preloadedCase(ctx, "profile", "prof")
	if err != nil {
		return p, err
	}
	defer r.dropCase(c)
	d, err := r.inProcessReference(c)
	if err != nil {
		return p, err
	}
	defer func() { err = errors.Join(err, d.Close()) }()
	if err := os.MkdirAll(r.cfg.ProfileDir, 0o755); err != nil {
		return p, fmt.Errorf("profile dir: %w", err)
	}
	p.CPUFile = filepath.Join(r.cfg.ProfileDir, "reference-cpu.pprof")
	if err := profileSteps(ctx, d, p.CPUFile, &p); err != nil {
		return p, err
	}
	p.Top = pprofTop(ctx, p.CPUFile)
	r.log("profile: %d events in %d batches, %.0f events/s; claim %s, process %s; CPU profile %s",
		p.Events, p.Batches, p.EPS, p.ClaimTime.Round(time.Millisecond), p.ProcessTime.Round(time.Millisecond), p.CPUFile)
	return p, nil
}

// inProcessReference builds the reference library with the same
// environment the processes get.
func (r *runner) inProcessReference(c *caseDB) (*reference.Dispatcher, error) {
	env := r.srv.contractEnv(c, r.cfg)
	env["OUTBOX_INSTANCE_ID"] = "profile"
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	cfg, err := reference.ConfigFromEnv(environ)
	if err != nil {
		return nil, fmt.Errorf("reference config: %w", err)
	}
	d, err := reference.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	return d, nil
}

// profileSteps runs Claim and Process until a claim comes back empty, under
// a CPU profile written to file.
func profileSteps(ctx context.Context, d *reference.Dispatcher, file string, p *Profile) error {
	out, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("create %s: %w", file, err)
	}
	defer out.Close()
	cpu0, err := readCPU(os.Getpid())
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		return fmt.Errorf("start cpu profile: %w", err)
	}
	start := time.Now()
	err = claimProcessLoop(ctx, d, p)
	elapsed := time.Since(start)
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	cpu1, err := readCPU(os.Getpid())
	if err != nil {
		return err
	}
	p.CPUTime = cpu1 - cpu0
	p.EPS = float64(p.Events) / elapsed.Seconds()
	return nil
}

func claimProcessLoop(ctx context.Context, d *reference.Dispatcher, p *Profile) error {
	for {
		t0 := time.Now()
		b, err := d.Claim(ctx)
		if err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		t1 := time.Now()
		p.ClaimTime += t1.Sub(t0)
		if b == nil || len(b.Events) == 0 {
			return nil
		}
		if err := d.Process(ctx, b); err != nil {
			return fmt.Errorf("process: %w", err)
		}
		p.ProcessTime += time.Since(t1)
		p.Events += len(b.Events)
		p.Batches++
	}
}

// pprofTop runs `go tool pprof -top` on file; its failure is reported in
// place of the listing (the profile file is still there to read).
func pprofTop(ctx context.Context, file string) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-cum", "-nodecount=20", "-show="+profileShow, file).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(go tool pprof -top %s failed: %v)", file, err)
	}
	var keep []string
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if !strings.HasPrefix(line, "File:") && !strings.HasPrefix(line, "Build ID:") && !strings.HasPrefix(line, "Time:") {
			keep = append(keep, line)
		}
	}
	if len(keep) > profileTopLines {
		keep = keep[:profileTopLines]
	}
	return strings.Join(keep, "\n")
}

func writeProfile(b *strings.Builder, p Profile) {
	b.WriteString("## Profile: one reference instance, in-process\n\n")
	total := p.ClaimTime + p.ProcessTime
	share := func(d time.Duration) float64 {
		if total == 0 {
			return 0
		}
		return 100 * d.Seconds() / total.Seconds()
	}
	busy := share(p.CPUTime)
	fmt.Fprintf(b, "The reference library driven step by step (Claim, then Process) over %s events in %d batches: %s events/s. "+
		"Wall time: claim transaction %s (%.0f%%), process (jobs query, pipelined add, finalize transaction) %s (%.0f%%). "+
		"CPU of the process: %.2f s, %.0f%% of the wall time: the rest is waiting on MySQL and Redis.\n\n",
		num(float64(p.Events)), p.Batches, num(p.EPS), p.ClaimTime.Round(time.Millisecond), share(p.ClaimTime),
		p.ProcessTime.Round(time.Millisecond), share(p.ProcessTime), p.CPUTime.Seconds(), busy)
	fmt.Fprintf(b, "CPU profile `%s`; `go tool pprof -top -cum -show='%s'`:\n\n```\n%s\n```\n\n", filepath.Base(p.CPUFile), profileShow, p.Top)
}
