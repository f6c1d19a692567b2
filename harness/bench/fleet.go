package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// termTimeout bounds a graceful stop of one instance.
const termTimeout = 15 * time.Second

// fleet is the instances of one case, real processes started through the
// supervisor.
type fleet struct {
	sup   *supervisor.Supervisor
	procs []*supervisor.Proc
}

// startFleet starts n instances (slots d1..dn) of a with env; their logs
// go to logDir.
func startFleet(ctx context.Context, a supervisor.Adapter, logDir string, env map[string]string, n int) (*fleet, error) {
	f := &fleet{sup: supervisor.New(a, nil, logDir)}
	for i := 1; i <= n; i++ {
		p, err := f.sup.Start(ctx, fmt.Sprintf("d%d", i), env)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("start %s instance %d of %d: %w", a.Name(), i, n, err), f.sup.Close())
		}
		f.procs = append(f.procs, p)
	}
	return f, nil
}

// alive returns an error naming every instance that exited on its own: a
// benchmark of a crashed dispatcher measures nothing.
func (f *fleet) alive() error {
	var bad []string
	for _, e := range f.sup.UnexpectedExits() {
		bad = append(bad, e.String())
	}
	if len(bad) > 0 {
		return fmt.Errorf("dispatcher exited during the benchmark: %s (logs: %s)",
			strings.Join(bad, "; "), filepath.Dir(f.procs[0].LogPath))
	}
	return nil
}

// usage reads every instance's /proc entry.
func (f *fleet) usage() ([]procUsage, error) {
	out := make([]procUsage, 0, len(f.procs))
	for _, p := range f.procs {
		u, err := readUsage(p.PID)
		if err != nil {
			return nil, fmt.Errorf("instance %s: %w", p.ID, errors.Join(err, f.alive()))
		}
		out = append(out, u)
	}
	return out, nil
}

// cpu sums the instances' CPU time.
func (f *fleet) cpu() (time.Duration, error) {
	us, err := f.usage()
	if err != nil {
		return 0, err
	}
	var total time.Duration
	for _, u := range us {
		total += u.CPU
	}
	return total, nil
}

// peakRSSKB is the largest VmHWM of any instance.
func (f *fleet) peakRSSKB() (int64, error) {
	us, err := f.usage()
	if err != nil {
		return 0, err
	}
	var peak int64
	for _, u := range us {
		peak = max(peak, u.HWMKB)
	}
	return peak, nil
}

// stop asks every instance to stop gracefully, then closes the supervisor
// (which kills whatever is left). A failed graceful stop is reported.
func (f *fleet) stop() error {
	var errs []error
	for _, slot := range f.sup.Alive() {
		if _, err := f.sup.Term(slot, termTimeout); err != nil {
			errs = append(errs, fmt.Errorf("stop instance %s: %w", slot, err))
		}
	}
	return errors.Join(append(errs, f.sup.Close())...)
}
