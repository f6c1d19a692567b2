package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// runner holds one run's live resources.
type runner struct {
	cfg     Config
	srv     *servers
	workDir string
	log     func(format string, args ...any)
}

// Measure runs the whole benchmark: the floor, the reference with each
// instance count, each design, and the long memory check when asked; it
// prints the table to cfg.Out and writes it to cfg.File. An error is a
// harness problem (a server that would not start, a dispatcher that
// crashed or got stuck); no goal is ever an error.
func Measure(ctx context.Context, cfg Config) (rep Report, err error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	begin := time.Now()
	r := &runner{cfg: cfg, log: func(format string, args ...any) {
		fmt.Fprintf(cfg.Out, "bench [%5.1fs]: "+format+"\n", append([]any{time.Since(begin).Seconds()}, args...)...)
	}}
	cleanup, err := r.setup(ctx)
	defer func() { err = errors.Join(err, cleanup()) }()
	if err != nil {
		return Report{}, err
	}
	if rep, err = r.run(ctx); err != nil {
		return rep, err
	}
	return rep, r.publish(&rep)
}

// setup makes the work directory, opens the servers and builds every
// dispatcher. The returned cleanup undoes whatever was done.
func (r *runner) setup(ctx context.Context) (cleanup func() error, err error) {
	var undo []func() error
	cleanup = func() error {
		var errs []error
		for i := len(undo) - 1; i >= 0; i-- {
			errs = append(errs, undo[i]())
		}
		return errors.Join(errs...)
	}
	r.workDir = r.cfg.WorkDir
	if r.workDir == "" {
		if r.workDir, err = os.MkdirTemp("", "outboxchaos-bench-"); err != nil {
			return cleanup, fmt.Errorf("bench work dir: %w", err)
		}
		dir := r.workDir
		undo = append(undo, func() error { return os.RemoveAll(dir) })
	}
	r.log("starting private MariaDB and Redis")
	if r.srv, err = openServers(ctx, r.cfg); err != nil {
		return cleanup, err
	}
	undo = append(undo, r.srv.Close)
	return cleanup, r.build(ctx)
}

// build prepares the reference and every design once.
func (r *runner) build(ctx context.Context) error {
	r.log("building %s", r.cfg.Reference.Name())
	if err := r.cfg.Reference.Prepare(ctx, r.workDir); err != nil {
		return fmt.Errorf("build %s: %w", r.cfg.Reference.Name(), err)
	}
	for _, d := range r.cfg.Designs {
		r.log("building %s", d.Name)
		if err := d.Adapter.Prepare(ctx, r.workDir); err != nil {
			return fmt.Errorf("build design %s: %w", d.Name, err)
		}
	}
	return nil
}

// run measures every row.
func (r *runner) run(ctx context.Context) (Report, error) {
	rep := Report{Started: time.Now().UTC(), Tuning: r.tuning(), Command: r.cfg.Command}
	var err error
	if rep.Machine, err = r.machine(ctx); err != nil {
		return rep, err
	}
	if rep.Rows, err = r.saturationRounds(ctx); err != nil {
		return rep, err
	}
	for _, d := range r.cfg.Designs {
		row, err := r.designCase(ctx, d)
		if err != nil {
			return rep, fmt.Errorf("design %s: %w", d.Name, err)
		}
		rep.Rows = append(rep.Rows, row)
	}
	if err := r.extras(ctx, &rep); err != nil {
		return rep, err
	}
	rep.Machine.LoadEnd = loadAverage()
	rep.Ended = time.Now().UTC()
	rep.Goals = goals(&rep, r.cfg)
	return rep, nil
}

// extras runs the optional long memory check and the profile.
func (r *runner) extras(ctx context.Context, rep *Report) error {
	if r.cfg.LongEvents > 0 {
		long, err := r.runLong(ctx)
		if err != nil {
			return fmt.Errorf("long memory check: %w", err)
		}
		rep.Long = &long
	}
	if r.cfg.ProfileDir != "" {
		p, err := r.runProfile(ctx)
		if err != nil {
			return fmt.Errorf("profile: %w", err)
		}
		rep.Profile = &p
	}
	return nil
}

// referenceCase runs the reference with n instances at saturation, then,
// when withLatency, the latency phase on the same instances.
func (r *runner) referenceCase(ctx context.Context, n int, withLatency bool) (row Row, err error) {
	row = Row{Name: fmt.Sprintf("reference x%d", n), Kind: KindReference, Instances: n}
	c, err := r.srv.newCase(ctx, row.Name)
	if err != nil {
		return row, err
	}
	defer r.dropCase(c)
	f, err := r.saturate(ctx, c, r.cfg.Reference, &row, r.cfg.Events, 0)
	if err != nil {
		return row, err
	}
	defer func() { err = errors.Join(err, f.stop()) }()
	if withLatency {
		if row.Latency, err = r.measureLatency(ctx, c, f, row.Name); err != nil {
			return row, err
		}
	}
	return row, r.notePeak(f, &row)
}

// designCase runs one comparison design at saturation, capped.
func (r *runner) designCase(ctx context.Context, d Design) (row Row, err error) {
	row = Row{Name: fmt.Sprintf("%s x%d", d.Name, d.Instances), Kind: KindDesign, Instances: d.Instances, About: d.About}
	c, err := r.srv.newCase(ctx, d.Name)
	if err != nil {
		return row, err
	}
	defer r.dropCase(c)
	f, err := r.saturate(ctx, c, d.Adapter, &row, d.Events, r.cfg.SeedCap)
	if err != nil {
		return row, err
	}
	defer func() { err = errors.Join(err, f.stop()) }()
	return row, r.notePeak(f, &row)
}

func (r *runner) notePeak(f *fleet, row *Row) error {
	kb, err := f.peakRSSKB()
	if err != nil {
		return err
	}
	row.PeakRSSMB = float64(kb) / 1024
	return nil
}

// dropCase drops a case's database; a failure is logged, not fatal: the
// private server goes away with the run.
// preloadedCase opens a fresh case database named name and preloads
// cfg.Events events into it, their jobs named after prefix; drop it with
// dropCase.
func (r *runner) preloadedCase(ctx context.Context, name, prefix string) (*caseDB, error) {
	c, err := r.srv.newCase(ctx, name)
	if err != nil {
		return nil, err
	}
	r.log("%s: preloading %d events", name, r.cfg.Events)
	if err := c.preload(ctx, prefix, r.cfg.Events); err != nil {
		r.dropCase(c)
		return nil, err
	}
	return c, nil
}

func (r *runner) dropCase(c *caseDB) {
	if err := r.srv.dropCase(c); err != nil {
		r.log("warning: %v", err)
	}
}

// logDir is where the named case's instances write their logs.
func (r *runner) logDir(name string) string {
	return filepath.Join(r.workDir, "logs", strings.ReplaceAll(name, " ", "-"))
}

// tuning lists the settings the header shows.
func (r *runner) tuning() []string {
	c := r.cfg
	return []string{
		fmt.Sprintf("saturation: %s events preloaded for the floor and each reference row; rounds: %d, interleaved, the median is reported", num(float64(c.Events)), c.Rounds),
		fmt.Sprintf("reference OUTBOX_BATCH_SIZE=%d OUTBOX_POLL_INTERVAL=%s, floor batch %d", c.BatchSize, c.PollInterval, c.BatchSize),
		fmt.Sprintf("latency: %.0f events/s offered for %s, one transaction per event", c.Rate, c.LatencyDuration),
		fmt.Sprintf("designs capped at %s of dispatching", c.SeedCap),
	}
}
