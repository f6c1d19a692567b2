package reports

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// TestValidEventsFailedCountsOnlyValidEvents: "valid events failed" counts
// valid events whose final state is failed, not poison failing as it should,
// and it is on the page.
func TestValidEventsFailedCountsOnlyValidEvents(t *testing.T) {
	meta := history.Meta{Scenario: "redis-outage", Adapter: "reference", Started: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Tuning: history.Tuning{Lease: history.Duration(2 * time.Second), MaxAttempts: 1}}
	b := newRunBuilder(meta)
	b.produce(1, history.KindValid, "ai.job.enqueue", "q", b.at(0))
	tok := b.claim(1, "d1", 1, b.at(10), history.StatusPending, "")
	b.fail(1, "d1", tok, 1, b.at(20), "max_attempts: attempt 1 of 1: redis down", "")
	b.produce(2, history.KindMissingJob, "ai.job.enqueue", "q", b.at(0))
	tok = b.claim(2, "d1", 1, b.at(10), history.StatusPending, "")
	b.fail(2, "d1", tok, 1, b.at(20), "job_not_found: no row", "")
	b.produce(3, history.KindValid, "ai.job.enqueue", "q", b.at(0))
	tok = b.claim(3, "d1", 1, b.at(10), history.StatusPending, "")
	b.add(3, "q", b.at(15))
	b.publish(3, "d1", tok, 1, b.at(20))
	run := b.finish()

	res := Build(run, nil)
	require.Equal(t, 2, res.Counts.Failed)
	require.Equal(t, 1, res.Counts.ValidFailed)

	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, nil))
	page := readFile(t, dir+"/index.html")
	require.Contains(t, page, "valid events failed: 1")
	require.Contains(t, readFile(t, dir+"/results.json"), `"valid_failed": 1`)
}
