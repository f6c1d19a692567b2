package dialects_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// go-timestamps (issue 22): no status column, a Redis Streams sink,
// at-least-once. Its manifest describes its own shape, so it is not one of
// goDialects (schema: reference); it runs here.

const timestamps = "go-timestamps"

// timestampsSubset is what `make test` runs of the catalog for it: the
// scenarios whose faults land on this shape today and that test what it
// promises. mysql-outage and lost-reply-mysql-commit leave marks
// unwritten, so rows are published again after their lease, under the
// same message id. Not here, because their landing rules cannot land on
// it yet (the runs are unknown, every invariant holding): crash-window,
// dedupe-horizon, lease-expiry, zombie, clock-skew and commit-order-gaps
// attribute claims by locked_by, which this outbox has not; queue-error
// and lost-reply-redis recognise BullMQ adds only (keys <prefix>:<queue>:,
// EVAL/EVALSHA), not an XADD; redis-outage counts failed attempts as
// returns to pending, which here read as extensions of the claim.
var timestampsSubset = []sized{{"baseline", 200}, {"mysql-outage", 200}, {"lost-reply-mysql-commit", 300}, {"graceful-shutdown", 300}}

// timestampsPlants are its planted bugs, each with the scenario that must
// catch it and the invariant that must fail (go-timestamps/doc.go).
var timestampsPlants = []struct {
	bug, scenario, invariant string
	events                   int
}{
	// A published row claimed again once its lease runs out: the claim's
	// write over a finalized row (the re-publish itself carries the same
	// message id, a duplicate at-least-once allows).
	{"recovery-ignores-processed", "baseline", "I5", 200},
	// The trap's kills leave rows published and unmarked; their next claim
	// publishes them under a second message id.
	{"new-id-on-republish", "crash-window", "I1", 400},
}

func TestTimestampsManifestsDescribeTheirShape(t *testing.T) {
	for _, name := range append([]string{"manifest.yaml"}, plantManifests()...) {
		a := load(t, filepath.Join(timestamps, name))
		m := a.Schema()
		require.False(t, m.StatusWords(), "%s: no status column", name)
		require.False(t, m.HasJobs(), "%s: no jobs table", name)
		require.Equal(t, schema.KeyText, m.Outbox.IDType, "%s: a uuid key the producer writes", name)
		require.Equal(t, history.SinkStream, a.SinkKind(), name)
		require.Equal(t, history.DeliveryAtLeastOnce, a.Delivery(), name)
		c := a.Capabilities()
		require.False(t, c.CrashPoints, "%s: a black box", name)
		require.True(t, c.GracefulTerm, name)
	}
}

func plantManifests() []string {
	var out []string
	for _, p := range timestampsPlants {
		out = append(out, "manifest-"+p.bug+".yaml")
	}
	return out
}

func TestTimestampsConfigErrorsAreOneLine(t *testing.T) {
	good := []string{"OUTBOX_MYSQL_DSN=root:@tcp(127.0.0.1:1)/outbox", "OUTBOX_REDIS_URL=redis://127.0.0.1:1/0",
		"OUTBOX_QUEUES=orders,invoices", "OUTBOX_INSTANCE_ID=d1"}
	bad := map[string]string{
		"OUTBOX_LEASE=forever":           "OUTBOX_LEASE",
		"OUTBOX_MAX_ATTEMPTS=-1":         "OUTBOX_MAX_ATTEMPTS",
		"OUTBOXCHAOS_PLANT=no-such":      "OUTBOXCHAOS_PLANT",
		"OUTBOX_POLL_INTERVAL=often":     "OUTBOX_POLL_INTERVAL",
		"OUTBOX_PUBLISH_TIMEOUT=1h":      "OUTBOX_LEASE",
		"OUTBOX_MYSQL_DSN=no-dsn-at-all": "OUTBOX_MYSQL_DSN",
	}
	requireOneLineErrors(t, t.TempDir(), timestamps, good, bad)
}

// TestTimestampsKeepsTheContract runs its subset as a black box: every run
// passes, and every invariant holds or says why it cannot be judged here.
func TestTimestampsKeepsTheContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 scenarios (about a minute): not in -short")
	}
	requireSubsetPasses(t, timestamps, timestampsSubset, func(t *testing.T, o runner.Outcome) {
		for _, id := range []string{"I4", "I9"} {
			require.Equal(t, check.NotApplicable, result(t, o, id).Verdict, "%s: no poison, no BullMQ job", id)
		}
		// I6 applies (the lease column doubles as available_at once an
		// attempt finished); with no failed attempt it is not exercised.
		require.NotEqual(t, check.NotApplicable, result(t, o, "I6").Verdict, "I6: the manifest declares available_at")
	})
}

// TestTimestampsPlantedBugsAreCaught runs each planted bug in its
// scenario: its invariant fails, with violations.
func TestTimestampsPlantedBugsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2 scenarios (about half a minute): not in -short")
	}
	e := openEnv(t)
	work := t.TempDir()
	for _, p := range timestampsPlants {
		t.Run(p.bug, func(t *testing.T) {
			a := load(t, filepath.Join(timestamps, "manifest-"+p.bug+".yaml"))
			o := run(t, e, a, work, p.scenario, p.events)
			r := result(t, o, p.invariant)
			require.Equal(t, check.Fail, r.Verdict, "%s in %s: %s is %s: %s", p.bug, p.scenario, p.invariant, r.Verdict, r.Reason)
			require.NotEmpty(t, r.Violations)
			require.Equal(t, check.Fail, o.Verdict)
			t.Logf("%s caught by %s: %s", p.bug, p.invariant, r.Violations[0].Summary)
		})
	}
}

// TestTimestampsStreamLossIsRedises runs redis-loses-adds: the XADDs Redis
// acknowledged while its append-only file was off are gone from the
// restored stream, and they are Redis's lost adds, never go-timestamps'
// violations. Redis runs with its append-only file, as `make chaos` runs it.
func TestTimestampsStreamLossIsRedises(t *testing.T) {
	for _, l := range requireRedisLossIsRedises(t, timestamps, 500, history.SinkStream) {
		require.True(t, l.Acknowledged, "%s", l)
	}
}

// requireRedisLossIsRedises runs redis-loses-adds on dialect d, with Redis's
// append-only file on as `make chaos` runs it: the run passes, every
// invariant holds, and Redis lost adds, each on a sink of kind sink. It
// returns them.
func requireRedisLossIsRedises(t *testing.T, d string, events int, sink string) []check.LostAdd {
	t.Helper()
	if testing.Short() {
		t.Skip("an end-to-end run: not in -short")
	}
	needNode(t, d)
	localtest.EndToEnd(t)
	e, err := env.Open(testCtx(t), env.Config{Kind: env.KindLocal, RedisPersistence: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	o := run(t, e, load(t, filepath.Join(d, "manifest.yaml")), t.TempDir(), "redis-loses-adds", events)
	require.Equal(t, check.Pass, o.Verdict, "%s %v", o.Reason, o.Landing)
	requireAllHold(t, o)
	lost := check.LostAdds(o.History)
	require.NotEmpty(t, lost)
	for _, l := range lost {
		require.Equal(t, sink, l.Sink, "%s", l)
	}
	return lost
}
