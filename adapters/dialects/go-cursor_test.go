package dialects_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// go-cursor has an outbox of its own shape (an append-only log and a
// consumer group's offset, doc.go), so the reference-schema tests of
// dialects_test.go leave it out and this file tests it.
const goCursor = "go-cursor"

// goCursorSubset is what `make test` runs of the catalog for go-cursor:
// the scenarios that matter for a cursor (commit-order gaps, a COMMIT of
// the offset whose reply is lost, turns handed over on SIGTERM, kills
// between a publish and the offset's COMMIT: the window trap must find the
// turn and the landing count the cut publishes, or the run is unknown).
var goCursorSubset = []sized{{"baseline", 200}, {"commit-order-gaps", 400}, {"lost-reply-mysql-commit", 400}, {"graceful-shutdown", 300}, {"crash-window", 800}}

// goCursorPlants are go-cursor's planted bugs, each with the scenario and
// the invariant that must catch it.
var goCursorPlants = []struct {
	bug, scenario, invariant string
	events                   int
}{
	{"trusts-id", "commit-order-gaps", "I2", 400},
	{"ack-before-publish", "redis-outage", "I3", 400},
}

func TestGoCursorManifestsDescribeACursor(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(goCursor, "manifest*.yaml"))
	require.NoError(t, err)
	require.Len(t, paths, 1+len(goCursorPlants))
	for _, p := range paths {
		a := load(t, p)
		m := a.Schema()
		require.Equal(t, &schema.Cursor{Table: "outbox_offsets", Column: "offset_acked", GroupColumn: "consumer_group", Group: "bullmq-relay"}, m.States.Cursor, p)
		require.Equal(t, schema.KeyAuto, m.Outbox.IDType, p)
		require.Equal(t, "uuid", m.Outbox.MessageID, p)
		require.False(t, m.HasJobs(), p)
		require.Equal(t, history.DeliveryAtLeastOnce, a.Delivery(), p)
		c := a.Capabilities()
		require.False(t, c.CrashPoints, "%s: a dialect is a black box, no crash points", p)
		require.True(t, c.GracefulTerm, p)
		model := runner.OutboxModel(a)
		require.Equal(t, history.FormCursor, model.Form, p)
		require.False(t, model.Has(history.LackClaims), "%s: a cursor has no claims", p)
	}
	for _, pl := range goCursorPlants {
		a := load(t, filepath.Join(goCursor, "manifest-"+pl.bug+".yaml"))
		require.Equal(t, goCursor+"-"+pl.bug, a.Name())
	}
}

func TestGoCursorConfigErrorsAreOneLine(t *testing.T) {
	good := []string{"OUTBOX_MYSQL_DSN=root:@tcp(127.0.0.1:1)/outbox", "OUTBOX_REDIS_URL=redis://127.0.0.1:1/0",
		"OUTBOX_QUEUES=ai-default", "OUTBOX_INSTANCE_ID=d1"}
	bad := map[string]string{
		"OUTBOX_POLL_INTERVAL=often":    "OUTBOX_POLL_INTERVAL",
		"OUTBOX_BATCH_SIZE=0":           "OUTBOX_BATCH_SIZE",
		"OUTBOX_PUBLISH_TIMEOUT=-1s":    "OUTBOX_PUBLISH_TIMEOUT",
		"OUTBOX_GAP_LAG=soon":           "OUTBOX_GAP_LAG",
		"OUTBOXCHAOS_PLANT=no-such":     "OUTBOXCHAOS_PLANT",
		"OUTBOX_QUEUES=,":               "OUTBOX_QUEUES",
		"OUTBOX_MYSQL_DSN=not a dsn at": "OUTBOX_MYSQL_DSN",
	}
	requireOneLineErrors(t, t.TempDir(), goCursor, good, bad)
}

// TestGoCursorKeepsTheContract runs go-cursor through its subset and
// requires every invariant that applies to hold, and the run to pass.
func TestGoCursorKeepsTheContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 5 scenarios (about a minute and a half): not in -short")
	}
	requireSubsetPasses(t, goCursor, goCursorSubset, nil)
}

// TestGoCursorPlantsAreCaught runs each planted bug in its scenario: its
// invariant must fail, or the run must be unknown because a fault did not
// land; the run never passes.
func TestGoCursorPlantsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2 scenarios: not in -short")
	}
	e := openEnv(t)
	work := t.TempDir()
	for _, p := range goCursorPlants {
		t.Run(p.bug, func(t *testing.T) {
			a := load(t, filepath.Join(goCursor, "manifest-"+p.bug+".yaml"))
			o := runWith(t, e, a, work, p.scenario, p.events, func(*runner.Scenario) {})
			r := result(t, o, p.invariant)
			require.NotEqual(t, check.Pass, o.Verdict, "%s passed %s: %s is %s: %s", p.bug, p.scenario, p.invariant, r.Verdict, r.Reason)
			if r.Verdict != check.Fail {
				require.NotEmpty(t, check.Unlanded(o.Landing), "%s: %s is %s but every fault landed: %s", p.bug, p.invariant, r.Verdict, r.Reason)
				require.Equal(t, check.Unknown, o.Verdict)
				t.Logf("%s: %s %s, the fault did not land: %v", p.bug, p.invariant, r.Verdict, check.Unlanded(o.Landing))
				return
			}
			require.NotEmpty(t, r.Violations)
			t.Logf("%s caught by %s: %s", p.bug, p.invariant, r.Violations[0].Summary)
		})
	}
}
