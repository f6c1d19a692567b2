package reference_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// get returns the status and body of url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

func TestMetricsAndHealthOnTheMetricsAddress(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-1")
	cfg := e.Config("d1")
	cfg.MetricsAddr = "127.0.0.1:0"
	d := e.dispatcher(cfg)

	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	code, body := get(t, srv.URL+"/healthz")
	require.Equal(t, http.StatusServiceUnavailable, code, "not running yet")
	require.Contains(t, body, "not running")

	stop := e.run(d)
	e.waitFor("the metrics server", func() bool { return d.MetricsAddr() != "" })
	base := "http://" + d.MetricsAddr()
	e.waitFor("healthy", func() bool { code, _ := get(t, base+"/healthz"); return code == http.StatusOK })
	e.waitFor("the event published", func() bool { return e.event(id).Status == "published" })

	_, metrics := get(t, base+"/metrics")
	for _, want := range []string{
		"outbox_claimed_total 1",
		`outbox_published_total{how="added"} 1`,
		"outbox_batch_duration_seconds_count 1",
		"outbox_oldest_pending_age_seconds",
		"outbox_retried_total 0",
		"outbox_fenced_out_total 0",
		"outbox_recovered_total 0",
	} {
		require.Contains(t, metrics, want)
	}

	stop()
	code, _ = get(t, srv.URL+"/healthz")
	require.Equal(t, http.StatusServiceUnavailable, code, "stopped")
	_, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.Error(t, err, "the metrics server is closed with the loop")
}

func TestHealthIsUnavailableWhileMySQLAnswersNothing(t *testing.T) {
	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadAddr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cfg := e.Config("d1")
	cfg.MySQLDSN = "root@tcp(" + deadAddr + ")/outbox?timeout=200ms"
	d := e.dispatcher(cfg)
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	e.run(d)

	e.waitFor("the open MySQL breaker to show", func() bool {
		code, body := get(t, srv.URL+"/healthz")
		var doc struct {
			Status       string
			Dependencies map[string]struct{ State, Reason string }
		}
		require.NoError(t, json.Unmarshal([]byte(body), &doc))
		mysql := doc.Dependencies["mysql"]
		return code == http.StatusServiceUnavailable && strings.HasPrefix(doc.Status, "mysql answered nothing") &&
			mysql.State == "open" && strings.Contains(mysql.Reason, "connection refused") &&
			doc.Dependencies["redis"].State == "closed"
	})
}

func TestOldestPendingAgeGauge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.addValid("job-1")
	_, err := e.DB.Exec(`UPDATE outbox_events SET available_at = NOW(6) - INTERVAL 100 SECOND WHERE id = ?`, id)
	require.NoError(t, err)
	future := e.addValid("job-later")
	_, err = e.DB.Exec(`UPDATE outbox_events SET available_at = NOW(6) + INTERVAL 1 HOUR WHERE id = ?`, future)
	require.NoError(t, err)
	d := e.dispatcher(e.Config("d1"))

	gauge := func() float64 {
		mfs, err := d.Registry().Gather()
		require.NoError(t, err)
		for _, mf := range mfs {
			if mf.GetName() == "outbox_oldest_pending_age_seconds" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		t.Fatal("gauge not registered")
		return 0
	}
	require.NoError(t, d.RefreshBacklog(ctx))
	require.GreaterOrEqual(t, gauge(), 100.0)
	require.Less(t, gauge(), 200.0)

	_, err = d.Poll(ctx)
	require.NoError(t, err)
	require.NoError(t, d.RefreshBacklog(ctx))
	require.Zero(t, gauge(), "an event not yet due is no backlog")
}
