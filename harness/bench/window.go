package bench

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// window brackets one measurement: the servers' counters and CPU at its
// start, and the database clock when the dispatchers were let go.
type window struct {
	before    serverCounts
	mariaCPU0 time.Duration
	redisCPU0 time.Duration
	ownStart  int64
	machine0  machineTicks
	t0        time.Time // database clock
}

// windowWork is what the servers did inside a window.
type windowWork struct {
	work     serverCounts
	mariaCPU time.Duration
	redisCPU time.Duration
	// machineBusy is how many cores the whole machine (every program on
	// it, not only this benchmark) kept busy in the window.
	machineBusy float64
}

// openWindow reads the counters, then the database clock; start the
// dispatchers right after.
func (r *runner) openWindow(ctx context.Context, c *caseDB) (*window, error) {
	w := &window{}
	var err error
	if w.mariaCPU0, err = readCPU(r.srv.maria.Pid()); err != nil {
		return nil, fmt.Errorf("mariadb cpu: %w", err)
	}
	if w.redisCPU0, err = readCPU(r.srv.redis.Pid()); err != nil {
		return nil, fmt.Errorf("redis cpu: %w", err)
	}
	if w.before, err = r.srv.counters.read(ctx); err != nil {
		return nil, err
	}
	if w.machine0, err = readMachineTicks(); err != nil {
		return nil, err
	}
	w.ownStart = c.own.load()
	if w.t0, err = c.dbNow(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// close reads the counters and the servers' CPU again.
func (w *window) close(ctx context.Context, r *runner, c *caseDB) (windowWork, error) {
	var ww windowWork
	maria, err := readCPU(r.srv.maria.Pid())
	if err != nil {
		return ww, fmt.Errorf("mariadb cpu: %w", err)
	}
	rds, err := readCPU(r.srv.redis.Pid())
	if err != nil {
		return ww, fmt.Errorf("redis cpu: %w", err)
	}
	machine, err := readMachineTicks()
	if err != nil {
		return ww, err
	}
	ww.machineBusy = busyCores(w.machine0, machine, runtime.NumCPU())
	after, err := r.srv.counters.read(ctx)
	if err != nil {
		return ww, err
	}
	ww.work = r.srv.counters.work(w.before, after, c.own.load()-w.ownStart)
	ww.mariaCPU, ww.redisCPU = maria-w.mariaCPU0, rds-w.redisCPU0
	return ww, nil
}

// fill sets a row's rate and per-event columns from a closed window.
func (row *Row) fill(published int, elapsed time.Duration, ww windowWork, dispatcherCPU time.Duration) {
	row.Published, row.Elapsed = published, elapsed
	if published == 0 || elapsed <= 0 {
		return
	}
	n := float64(published)
	row.EPS = n / elapsed.Seconds()
	row.SQLPerEvent = float64(ww.work.Questions) / n
	row.RedisPerEvent = float64(ww.work.RedisCommands) / n
	per10k := func(d time.Duration) float64 { return d.Seconds() * 10000 / n }
	row.CPUPer10k = per10k(dispatcherCPU)
	row.MariaDBCPUPer10k = per10k(ww.mariaCPU)
	row.RedisCPUPer10k = per10k(ww.redisCPU)
	row.CoresBusy = (dispatcherCPU + ww.mariaCPU + ww.redisCPU).Seconds() / elapsed.Seconds()
	row.MachineBusy = ww.machineBusy
}
