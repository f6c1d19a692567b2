package dialects_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/store"
)

// go-pgcursor is go-cursor's shape on PostgreSQL (store: postgres): an
// append-only log with a BIGSERIAL offset, a consumer group's offset, holes
// closed through pg_snapshot_xmin (go-pgcursor/doc.go).
const goPGCursor = "go-pgcursor"

// goPGCursorSubset is what `make test` runs of the catalog for it: the
// scenarios that matter for a cursor on PostgreSQL (commit-order gaps of a
// BIGSERIAL, a COMMIT of the offset whose reply is lost, turns handed over
// on SIGTERM).
var goPGCursorSubset = []sized{{"baseline", 200}, {"commit-order-gaps", 400}, {"lost-reply-mysql-commit", 400}, {"graceful-shutdown", 300}}

// goPGCursorPlants are its planted bugs, each with the scenario and the
// invariant that must catch it.
var goPGCursorPlants = []struct {
	bug, scenario, invariant string
	events                   int
}{
	{"trusts-id", "commit-order-gaps", "I2", 400},
	{"ack-before-publish", "redis-outage", "I3", 400},
}

func TestGoPGCursorManifestsDescribeACursorOnPostgres(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(goPGCursor, "manifest*.yaml"))
	require.NoError(t, err)
	require.Len(t, paths, 1+len(goPGCursorPlants))
	for _, p := range paths {
		a := load(t, p)
		require.Equal(t, store.NamePostgres, a.StoreName(), p)
		m := a.Schema()
		require.Equal(t, &schema.Cursor{Table: "outbox_offsets", Column: "offset_acked", GroupColumn: "consumer_group", Group: "bullmq-relay"}, m.States.Cursor, p)
		require.Equal(t, schema.KeyAuto, m.Outbox.IDType, "%s: a BIGSERIAL offset", p)
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
	for _, pl := range goPGCursorPlants {
		a := load(t, filepath.Join(goPGCursor, "manifest-"+pl.bug+".yaml"))
		require.Equal(t, goPGCursor+"-"+pl.bug, a.Name())
	}
}

func TestGoPGCursorConfigErrorsAreOneLine(t *testing.T) {
	good := []string{"OUTBOX_POSTGRES_URL=postgres://u:p@127.0.0.1:1/outbox", "OUTBOX_REDIS_URL=redis://127.0.0.1:1/0",
		"OUTBOX_QUEUES=ai-default", "OUTBOX_INSTANCE_ID=d1"}
	bad := map[string]string{
		"OUTBOX_POLL_INTERVAL=often":              "OUTBOX_POLL_INTERVAL",
		"OUTBOX_BATCH_SIZE=0":                     "OUTBOX_BATCH_SIZE",
		"OUTBOX_PUBLISH_TIMEOUT=-1s":              "OUTBOX_PUBLISH_TIMEOUT",
		"OUTBOXCHAOS_PLANT=no-such":               "OUTBOXCHAOS_PLANT",
		"OUTBOX_QUEUES=,":                         "OUTBOX_QUEUES",
		"OUTBOX_POSTGRES_URL=postgres://h:x:y/db": "OUTBOX_POSTGRES_URL",
		"OUTBOX_REDIS_URL=http://nope":            "OUTBOX_REDIS_URL",
	}
	requireOneLineErrors(t, t.TempDir(), goPGCursor, good, bad)
}

// TestGoPGCursorKeepsTheContract runs go-pgcursor through its subset on
// PostgreSQL and requires every invariant that applies to hold, and the
// run to pass.
func TestGoPGCursorKeepsTheContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 scenarios (about a minute): not in -short")
	}
	requireSubsetPasses(t, goPGCursor, goPGCursorSubset, nil)
}

// TestGoPGCursorPlantsAreCaught runs each planted bug in its scenario: its
// invariant must fail, or the run must be unknown because a fault did not
// land; the run never passes.
func TestGoPGCursorPlantsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2 scenarios: not in -short")
	}
	e := openEnv(t)
	work := t.TempDir()
	for _, p := range goPGCursorPlants {
		t.Run(p.bug, func(t *testing.T) {
			a := load(t, filepath.Join(goPGCursor, "manifest-"+p.bug+".yaml"))
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
