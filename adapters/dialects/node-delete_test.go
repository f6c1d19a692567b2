package dialects_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/sink"
)

// node-delete deletes a row once its Redis list has the message, keeps
// failures in a dead-letter table, leases rows with lease_owner and
// lease_until and has no status column (node-delete/README.md).
const nodeDelete = "node-delete"

// nodeDeleteSubset is what `make test` runs of the catalog for node-delete:
// its shape's points are a delete after the push (crash-window: the owner
// killed between the two, the row taken over and pushed again under the
// same id, I1 at-least-once and I8) and the dead letters (queue-error:
// backoff and bounded attempts, I6 and I7).
var nodeDeleteSubset = []sized{{"baseline", 200}, {"crash-window", 800}, {"queue-error", 300}}

// nodeDeletePlants are node-delete's planted bugs, each with the scenario
// that catches it and the invariant that fails. delete-before-publish loses
// a message whenever the push after the delete does not land: queue-error
// refuses pushes to one list, and I3 finds rows deleted (published) with no
// message. A crash in between would lose it too, but the window traps of
// crash-window and lease-expiry kill an instance when its push shows up
// while it still holds the row, and this relay holds nothing by then: both
// come out unknown (README.md).
var nodeDeletePlants = []struct {
	bug, scenario, invariant string
	events                   int
}{
	{"delete-before-publish", "queue-error", "I3", 300},
	{"new-id-on-republish", "crash-window", "I1", 400},
}

// TestNodeDeleteManifestDescribesItsShape reads the manifest into the
// model the checkers judge: no status, a deletion that publishes, a
// dead-letter table, leases, a Redis list sink, at-least-once; and each
// plant's manifest by its name, a black box like its dialect's.
func TestNodeDeleteManifestDescribesItsShape(t *testing.T) {
	a := load(t, filepath.Join(nodeDelete, "manifest.yaml"))
	m := a.Schema()
	require.Equal(t, schema.DeletedPublished, m.States.Deleted)
	require.Equal(t, &schema.DeadLetter{Table: "relay_dead_letters", ID: "outbox_id"}, m.States.DeadLetter)
	require.Equal(t, schema.KeyAuto, m.Outbox.IDType)
	require.False(t, m.HasJobs())
	require.Equal(t, sink.Config{Kind: history.SinkList, Keys: []string{"orders", "notifications"}, MessageID: "id", Payload: "payload", Push: sink.PushLeft}, a.SinkConfig())
	require.Equal(t, history.DeliveryAtLeastOnce, a.Delivery())
	caps := model.Caps(m, a.SinkKind(), a.Delivery())
	require.Equal(t, []string{history.LackJobs, history.LackPoison}, caps.Lacks, "claims, leases, attempts, backoff and failed are all there")

	for _, name := range append([]string{"manifest.yaml"}, nodeDeletePlantManifests()...) {
		a := load(t, filepath.Join(nodeDelete, name))
		c := a.Capabilities()
		require.False(t, c.CrashPoints, "%s: a black box", name)
		require.True(t, c.GracefulTerm, name)
	}
	for _, p := range nodeDeletePlants {
		require.Equal(t, nodeDelete+"-"+p.bug, load(t, filepath.Join(nodeDelete, "manifest-"+p.bug+".yaml")).Name())
	}
}

func nodeDeletePlantManifests() []string {
	var out []string
	for _, p := range nodeDeletePlants {
		out = append(out, "manifest-"+p.bug+".yaml")
	}
	return out
}

// TestNodeDeleteConfigErrorsAreOneLine: a bad setting exits 2 at once with
// one line naming it.
func TestNodeDeleteConfigErrorsAreOneLine(t *testing.T) {
	needNode(t, nodeDelete)
	good := []string{"OUTBOX_MYSQL_URL=mysql://root:@127.0.0.1:1/outbox", "OUTBOX_REDIS_URL=redis://127.0.0.1:1/0",
		"OUTBOX_QUEUES=orders,notifications", "OUTBOX_INSTANCE_ID=d1"}
	bad := map[string]string{
		"OUTBOX_LEASE=forever":       "OUTBOX_LEASE",
		"OUTBOX_MAX_ATTEMPTS=-1":     "OUTBOX_MAX_ATTEMPTS",
		"OUTBOX_BATCH_SIZE=0":        "OUTBOX_BATCH_SIZE",
		"OUTBOXCHAOS_PLANT=no-such":  "OUTBOXCHAOS_PLANT",
		"OUTBOX_POLL_INTERVAL=often": "OUTBOX_POLL_INTERVAL",
		"OUTBOX_QUEUES=,":            "OUTBOX_QUEUES",
		"OUTBOX_MYSQL_URL=":          "OUTBOX_MYSQL_URL",
	}
	requireOneLineErrors(t, t.TempDir(), nodeDelete, good, bad)
}

// TestNodeDeleteKeepsTheContract runs node-delete through its subset as a
// black box: every run passes, every invariant that applies holds.
func TestNodeDeleteKeepsTheContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 3 scenarios end to end: not in -short")
	}
	needNode(t, nodeDelete)
	requireSubsetPasses(t, nodeDelete, nodeDeleteSubset, nil)
}

// TestNodeDeletePlantedBugsAreCaught runs each planted bug in its scenario:
// its invariant fails, with violations.
func TestNodeDeletePlantedBugsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2 scenarios end to end: not in -short")
	}
	needNode(t, nodeDelete)
	e := openEnv(t)
	work := t.TempDir()
	for _, p := range nodeDeletePlants {
		t.Run(p.bug, func(t *testing.T) {
			a := load(t, filepath.Join(nodeDelete, "manifest-"+p.bug+".yaml"))
			o := run(t, e, a, work, p.scenario, p.events)
			r := result(t, o, p.invariant)
			require.Equal(t, check.Fail, r.Verdict, "%s in %s: %s is %s: %s", p.bug, p.scenario, p.invariant, r.Verdict, r.Reason)
			require.NotEmpty(t, r.Violations)
			require.Equal(t, check.Fail, o.Verdict)
			t.Logf("%s caught by %s: %s", p.bug, p.invariant, r.Violations[0].Summary)
		})
	}
}

// TestNodeDeleteListLossIsRedises runs redis-loses-adds on node-delete's
// Redis list: the pushes Redis acknowledged while its append-only file was
// off are gone from the restored list, and they are Redis's lost adds,
// never node-delete's violations; a message the restore put back and the
// mover moved again is one message (I1).
func TestNodeDeleteListLossIsRedises(t *testing.T) {
	requireRedisLossIsRedises(t, nodeDelete, 800, history.SinkList)
}
