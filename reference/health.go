package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// health is what /healthz reports: is the loop running, does every
// dependency answer (no breaker open), and did the last poll succeed
// recently.
type health struct {
	running  atomic.Bool
	lastOK   atomic.Int64 // unix nanos of the last successful poll
	lastErr  atomic.Pointer[string]
	window   time.Duration
	nowLocal func() time.Time
	breakers []*breaker
}

func (h *health) pollSucceeded() {
	h.lastOK.Store(h.nowLocal().UnixNano())
	h.lastErr.Store(nil)
}

func (h *health) pollFailed(err error) {
	s := err.Error()
	h.lastErr.Store(&s)
}

// status returns whether the dispatcher is healthy and why.
func (h *health) status() (bool, string) {
	if !h.running.Load() {
		return false, "dispatch loop not running"
	}
	for _, b := range h.breakers {
		if !b.allows() {
			st := b.status()
			return false, fmt.Sprintf("%s answered nothing (breaker open since %s): %s", b.dep, st.Since.Format(time.RFC3339Nano), st.Reason)
		}
	}
	if e := h.lastErr.Load(); e != nil {
		return false, "last poll failed: " + *e
	}
	last := h.lastOK.Load()
	if last == 0 {
		return false, "no successful poll yet"
	}
	if age := h.nowLocal().Sub(time.Unix(0, last)); age > h.window {
		return false, fmt.Sprintf("last successful poll %s ago (limit %s)", age.Round(time.Millisecond), h.window)
	}
	return true, "ok"
}

// Handler serves /metrics (the dispatcher's own registry) and /healthz (200
// when the loop runs, no breaker is open and the last poll succeeded within
// the health window, else 503), with a JSON body saying why and, per
// dependency, its breaker's state, the reason it opened and since when.
func (d *Dispatcher) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(d.metrics.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		ok, why := d.health.status()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		deps := map[string]breakerStatus{}
		for _, b := range d.health.breakers {
			deps[b.dep] = b.status()
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": ok, "status": why, "instance": d.cfg.InstanceID, "dependencies": deps})
	})
	return mux
}

// serveMetrics starts the HTTP server on MetricsAddr, if set. The returned
// stop function shuts it down.
func (d *Dispatcher) serveMetrics() (stop func(), err error) {
	if d.cfg.MetricsAddr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", d.cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("metrics server: listen on %s: %w", d.cfg.MetricsAddr, err)
	}
	d.metricsAddr.Store(ln.Addr().String())
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Error("metrics server stopped", "error", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// MetricsAddr is the address the metrics server listens on once Run has
// started it ("" before, or when MetricsAddr is not configured). With a
// configured port 0 it tells the port chosen.
func (d *Dispatcher) MetricsAddr() string {
	if s, ok := d.metricsAddr.Load().(string); ok {
		return s
	}
	return ""
}
