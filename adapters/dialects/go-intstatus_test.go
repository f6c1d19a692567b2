package dialects_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// go-intstatus: integer state codes, BINARY(16) uuid keys, no jobs table,
// a BullMQ sink, exactly-once-effect (go-intstatus/doc.go).
const intStatus = "go-intstatus"

// intStatusSubset is what `make test` runs of the catalog for go-intstatus:
// the shape's points. dedupe-horizon is exactly once with no jobs table to
// consult (its sent record), queue-error its integer codes for a retry and
// a dead message (backoff on next_try_at, tries bounded), graceful-shutdown
// its release.
var intStatusSubset = []sized{{"baseline", 200}, {"dedupe-horizon", 400}, {"queue-error", 300}, {"graceful-shutdown", 300}}

// intStatusPlants are go-intstatus's planted bugs (its doc.go), each with the
// scenario that must catch it and the invariant that must fail.
var intStatusPlants = []struct {
	bug, scenario, invariant string
	events                   int
}{
	{"claims-sent", "baseline", "I5", 200},
	{"retry-as-dead", "queue-error", "I7", 200},
	{"jobid-only", "dedupe-horizon", "I1", 400},
}

// TestIntStatusManifestsDescribeItsShape: every manifest of go-intstatus
// loads as a black box with its own shape: status words over integer
// codes, a binary key found in the DDL, no jobs table, BullMQ, exactly once.
func TestIntStatusManifestsDescribeItsShape(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(intStatus, "manifest*.yaml"))
	require.NoError(t, err)
	require.Len(t, paths, 1+len(intStatusPlants))
	for _, p := range paths {
		a := load(t, p)
		m := a.Schema()
		require.Equal(t, schema.KeyBinary, m.Outbox.IDType, p)
		require.False(t, m.HasJobs(), p)
		require.True(t, m.StatusWords(), p)
		require.Equal(t, map[string]string{"0": history.StatusPending, "1": history.StatusProcessing,
			"2": history.StatusPublished, "3": history.StatusFailed}, m.OutboxStatus, p)
		require.Equal(t, history.SinkBullMQ, a.SinkKind(), p)
		require.Equal(t, history.DeliveryExactlyOnce, a.Delivery(), p)
		c := a.Capabilities()
		require.False(t, c.CrashPoints, "%s: a dialect is a black box, no crash points", p)
		require.True(t, c.GracefulTerm, p)
	}
	for _, p := range intStatusPlants {
		a := load(t, filepath.Join(intStatus, "manifest-"+p.bug+".yaml"))
		require.Equal(t, intStatus+"-"+p.bug, a.Name())
	}
}

// TestIntStatusConfigErrorsAreOneLine: a bad value exits 2 at once with one
// line naming the variable, its own OUTBOX_SENT_TTL included.
func TestIntStatusConfigErrorsAreOneLine(t *testing.T) {
	good := []string{"OUTBOX_MYSQL_DSN=root:@tcp(127.0.0.1:1)/outbox", "OUTBOX_MYSQL_URL=mysql://root:@127.0.0.1:1/outbox",
		"OUTBOX_REDIS_URL=redis://127.0.0.1:1/0", "OUTBOX_QUEUES=ai-default", "OUTBOX_INSTANCE_ID=d1"}
	bad := map[string]string{
		"OUTBOX_LEASE=forever":       "OUTBOX_LEASE",
		"OUTBOX_MAX_ATTEMPTS=-1":     "OUTBOX_MAX_ATTEMPTS",
		"OUTBOXCHAOS_PLANT=no-such":  "OUTBOXCHAOS_PLANT",
		"OUTBOX_POLL_INTERVAL=often": "OUTBOX_POLL_INTERVAL",
		"OUTBOX_SENT_TTL=1s":         "OUTBOX_SENT_TTL",
		"OUTBOX_QUEUES=a:b":          "OUTBOX_QUEUES",
	}
	requireOneLineErrors(t, t.TempDir(), intStatus, good, bad)
}

// TestIntStatusKeepsTheContract runs go-intstatus through its subset as a
// black box: every run passes, and every invariant that applies to its
// shape holds.
func TestIntStatusKeepsTheContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 scenarios (about 1.5 minutes): not in -short")
	}
	requireSubsetPasses(t, intStatus, intStatusSubset, nil)
}

// TestIntStatusPlantedBugsAreCaught runs each planted bug in its scenario:
// its invariant must fail, with violations.
func TestIntStatusPlantedBugsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 3 scenarios (about 1.5 minutes): not in -short")
	}
	e := openEnv(t)
	work := t.TempDir()
	for _, p := range intStatusPlants {
		t.Run(p.bug, func(t *testing.T) {
			a := load(t, filepath.Join(intStatus, "manifest-"+p.bug+".yaml"))
			o := run(t, e, a, work, p.scenario, p.events)
			r := result(t, o, p.invariant)
			require.Equal(t, check.Fail, r.Verdict, "%s in %s: %s is %s: %s", p.bug, p.scenario, p.invariant, r.Verdict, r.Reason)
			require.NotEmpty(t, r.Violations)
			require.NotEqual(t, check.Pass, o.Verdict)
			t.Logf("%s caught by %s: %s", p.bug, p.invariant, r.Violations[0].Summary)
		})
	}
}
