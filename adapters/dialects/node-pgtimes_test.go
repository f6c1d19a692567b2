package dialects_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// node-pgtimes (issues 22 and 23): Node.js on PostgreSQL with pg, no
// status column (processed_at, abandoned_at, locked_by/locked_until, two
// attempt counters), every time on clock_timestamp(), real bullmq adds
// with jobId = the row's uuid, at-least-once (node-pgtimes/README.md).
const nodePGTimes = "node-pgtimes"

// nodePGTimesSubset is what `make test` runs of the catalog for it: the
// PostgreSQL points of its shape. lock-conflicts answers its locking
// statements with 40P01, 55P03 and 40001 (a claim or settle rolled back,
// tried again); lost-reply-mysql-commit drops the reply of a COMMIT that
// committed (a settle whose outcome the relay cannot know: the row is
// published again under the same id); mysql-restart SIGKILLs the
// postmaster under load and restarts it (connections cut mid-transaction,
// the producer's too); graceful-shutdown its releases; crash-window the
// trap's kills between the add and the settle.
var nodePGTimesSubset = []sized{{"baseline", 200}, {"lock-conflicts", 400}, {"lost-reply-mysql-commit", 300},
	{"mysql-restart", 800}, {"graceful-shutdown", 300}, {"crash-window", 400}}

// nodePGTimesPlants are its planted bugs, each with the scenario that must
// catch it and the invariant that must fail.
var nodePGTimesPlants = []struct {
	bug, scenario, invariant string
	events                   int
}{
	// The claim forgets processed_at IS NULL: a published row is claimed
	// again once its lease runs out, a write over a finalized row.
	{"recovery-ignores-processed", "baseline", "I5", 200},
	// The trap's kills leave rows added and unsettled; their next claim
	// adds them under a second message id.
	{"new-id-on-republish", "crash-window", "I1", 400},
}

// TestNodePGTimesManifestsDescribeItsShape reads every manifest of the
// dialect into the model the checkers judge: PostgreSQL, states from
// predicates, a uuid key, no jobs table, BullMQ, at-least-once, leases,
// attempts and backoff all there; a black box with a graceful SIGTERM.
func TestNodePGTimesManifestsDescribeItsShape(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(nodePGTimes, "manifest*.yaml"))
	require.NoError(t, err)
	require.Len(t, paths, 1+len(nodePGTimesPlants))
	for _, p := range paths {
		a := load(t, p)
		m := a.Schema()
		require.Equal(t, "postgres", a.StoreName(), p)
		require.False(t, m.StatusWords(), "%s: no status column", p)
		require.Equal(t, "processed_at IS NOT NULL", m.States.Published, p)
		require.Equal(t, "abandoned_at IS NOT NULL", m.States.Failed, p)
		require.Contains(t, m.States.Claimed, "clock_timestamp()", "%s: the lease read on the statement's clock, not the transaction's", p)
		require.Equal(t, schema.KeyText, m.Outbox.IDType, "%s: a uuid key the producer writes", p)
		require.False(t, m.HasJobs(), p)
		require.Equal(t, history.SinkBullMQ, a.SinkKind(), p)
		require.Equal(t, history.DeliveryAtLeastOnce, a.Delivery(), p)
		caps := model.Caps(m, a.SinkKind(), a.Delivery())
		require.Equal(t, []string{history.LackJobs, history.LackPoison}, caps.Lacks, "%s: claims, leases, attempts, backoff and failed are all there", p)
		c := a.Capabilities()
		require.False(t, c.CrashPoints, "%s: a black box", p)
		require.True(t, c.GracefulTerm, p)
		require.Equal(t, "faketime", c.Clock, p)
	}
	for _, p := range nodePGTimesPlants {
		require.Equal(t, nodePGTimes+"-"+p.bug, load(t, filepath.Join(nodePGTimes, "manifest-"+p.bug+".yaml")).Name())
	}
}

// TestNodePGTimesConfigErrorsAreOneLine: a bad setting exits 2 at once
// with one line naming it.
func TestNodePGTimesConfigErrorsAreOneLine(t *testing.T) {
	needNode(t, nodePGTimes)
	good := []string{"OUTBOX_POSTGRES_URL=postgres://u:p@127.0.0.1:1/outbox", "OUTBOX_REDIS_URL=redis://127.0.0.1:1/0",
		"OUTBOX_QUEUES=orders,invoices", "OUTBOX_INSTANCE_ID=d1"}
	bad := map[string]string{
		"OUTBOX_LEASE=forever":                     "OUTBOX_LEASE",
		"OUTBOX_MAX_ATTEMPTS=-1":                   "OUTBOX_MAX_ATTEMPTS",
		"OUTBOX_BATCH_SIZE=0":                      "OUTBOX_BATCH_SIZE",
		"OUTBOXCHAOS_PLANT=no-such":                "OUTBOXCHAOS_PLANT",
		"OUTBOX_POLL_INTERVAL=often":               "OUTBOX_POLL_INTERVAL",
		"OUTBOX_PUBLISH_TIMEOUT=1h":                "OUTBOX_LEASE",
		"OUTBOX_QUEUES=a:b":                        "OUTBOX_QUEUES",
		"OUTBOX_POSTGRES_URL=":                     "OUTBOX_POSTGRES_URL",
		"OUTBOX_POSTGRES_URL=mysql://u@h:1/outbox": "OUTBOX_POSTGRES_URL",
	}
	requireOneLineErrors(t, t.TempDir(), nodePGTimes, good, bad)
}

// TestNodePGTimesKeepsTheContract runs its subset as a black box on a
// private PostgreSQL: every run passes, every invariant that applies
// holds, and the faults of each scenario landed.
func TestNodePGTimesKeepsTheContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 6 scenarios end to end: not in -short")
	}
	needNode(t, nodePGTimes)
	requireSubsetPasses(t, nodePGTimes, nodePGTimesSubset, func(t *testing.T, o runner.Outcome) {
		require.Empty(t, check.Unlanded(o.Landing))
		for _, id := range []string{"I2", "I3", "I5"} {
			require.Equal(t, check.Pass, result(t, o, id).Verdict, id)
		}
		require.Equal(t, check.NotApplicable, result(t, o, "I4").Verdict, "no poison without a jobs table")
	})
}

// TestNodePGTimesPlantedBugsAreCaught runs each planted bug in its
// scenario: its invariant fails, with violations.
func TestNodePGTimesPlantedBugsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2 scenarios end to end: not in -short")
	}
	needNode(t, nodePGTimes)
	e := openEnv(t)
	work := t.TempDir()
	for _, p := range nodePGTimesPlants {
		t.Run(p.bug, func(t *testing.T) {
			a := load(t, filepath.Join(nodePGTimes, "manifest-"+p.bug+".yaml"))
			o := run(t, e, a, work, p.scenario, p.events)
			r := result(t, o, p.invariant)
			require.Equal(t, check.Fail, r.Verdict, "%s in %s: %s is %s: %s", p.bug, p.scenario, p.invariant, r.Verdict, r.Reason)
			require.NotEmpty(t, r.Violations)
			require.Equal(t, check.Fail, o.Verdict)
			t.Logf("%s caught by %s: %s", p.bug, p.invariant, r.Violations[0].Summary)
		})
	}
}
