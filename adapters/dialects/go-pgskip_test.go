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

// go-pgskip: the first dialect on PostgreSQL (store: postgres): a FOR
// UPDATE SKIP LOCKED claim with a lease and a fencing token on the
// database's clock, a BIGSERIAL key and a uuid message id, no jobs table,
// at-least-once (go-pgskip/doc.go). Its runs open the environment's
// PostgreSQL on demand: the local environment starts a private one.
const pgSkip = "go-pgskip"

// pgSkipSubset is what `make test` runs of the catalog for go-pgskip: the
// scenarios whose faults PostgreSQL answers in its own way. lock-conflicts
// answers its locking statements with 40P01, 40001 and 55P03;
// lost-reply-mysql-commit drops a COMMIT's reply on the PostgreSQL wire;
// mysql-restart SIGKILLs the postmaster and restarts it on its data;
// graceful-shutdown is its release.
var pgSkipSubset = []sized{{"baseline", 200}, {"lock-conflicts", 400}, {"lost-reply-mysql-commit", 400},
	{"mysql-restart", 800}, {"graceful-shutdown", 300}}

// pgSkipPlants are go-pgskip's planted bugs, each with the scenario that
// must catch it and the invariant that must fail.
var pgSkipPlants = []struct {
	bug, scenario, invariant string
	events                   int
}{
	{"unfenced-finalize", "zombie", "I5", 400},
	{"backoff-at-tx-start", "lost-reply-redis", "I6", 400},
	{"no-jobid", "baseline", "I1", 200},
}

// TestPgSkipManifestsDescribeItsShape: every manifest of go-pgskip loads
// as a black box on PostgreSQL, with status words, a BIGSERIAL key, a uuid
// message id, a lock token, no jobs table, BullMQ, at-least-once, and its
// release convention.
func TestPgSkipManifestsDescribeItsShape(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(pgSkip, "manifest*.yaml"))
	require.NoError(t, err)
	require.Len(t, paths, 1+len(pgSkipPlants))
	for _, p := range paths {
		a := load(t, p)
		require.Equal(t, "postgres", a.StoreName(), p)
		m := a.Schema()
		require.Equal(t, schema.KeyAuto, m.Outbox.IDType, p)
		require.Equal(t, "message_id", m.Outbox.MessageID, p)
		require.Equal(t, "lease_token", m.Outbox.LockToken, p)
		require.False(t, m.HasJobs(), p)
		require.Equal(t, map[string]string{"new": history.StatusPending, "leased": history.StatusProcessing,
			"done": history.StatusPublished, "dead": history.StatusFailed}, m.OutboxStatus, p)
		require.Equal(t, history.SinkBullMQ, a.SinkKind(), p)
		require.Equal(t, history.DeliveryAtLeastOnce, a.Delivery(), p)
		require.Equal(t, []string{"released:"}, a.Conventions().ReleaseErrors, p)
		c := a.Capabilities()
		require.False(t, c.CrashPoints, "%s: a dialect is a black box, no crash points", p)
		require.True(t, c.GracefulTerm, p)
		model := runner.OutboxModel(a)
		require.Equal(t, history.FormStatus, model.Form, p)
		require.True(t, model.Has(history.LackClaims), "%s: claims with leases", p)
		require.True(t, model.Has(history.LackLeases), p)
	}
	for _, p := range pgSkipPlants {
		a := load(t, filepath.Join(pgSkip, "manifest-"+p.bug+".yaml"))
		require.Equal(t, pgSkip+"-"+p.bug, a.Name())
	}
}

// TestPgSkipConfigErrorsAreOneLine: a bad value exits 2 at once with one
// line naming the variable, the PostgreSQL DSN included.
func TestPgSkipConfigErrorsAreOneLine(t *testing.T) {
	good := []string{"OUTBOX_POSTGRES_URL=postgres://d1@127.0.0.1:1/outbox?sslmode=disable",
		"OUTBOX_REDIS_URL=redis://127.0.0.1:1/0", "OUTBOX_QUEUES=ai-default", "OUTBOX_INSTANCE_ID=d1"}
	bad := map[string]string{
		"OUTBOX_LEASE=forever":              "OUTBOX_LEASE",
		"OUTBOX_LEASE=1s":                   "OUTBOX_LEASE", // under twice the publish timeout
		"OUTBOX_MAX_ATTEMPTS=-1":            "OUTBOX_MAX_ATTEMPTS",
		"OUTBOXCHAOS_PLANT=no-such":         "OUTBOXCHAOS_PLANT",
		"OUTBOX_POLL_INTERVAL=often":        "OUTBOX_POLL_INTERVAL",
		"OUTBOX_QUEUES=a:b":                 "OUTBOX_QUEUES",
		"OUTBOX_POSTGRES_URL=postgres://[x": "OUTBOX_POSTGRES_URL",
		"OUTBOX_POSTGRES_URL=":              "OUTBOX_POSTGRES_URL",
	}
	requireOneLineErrors(t, t.TempDir(), pgSkip, good, bad)
}

// TestPgSkipKeepsTheContract runs go-pgskip through its subset as a black
// box on a private PostgreSQL: every run passes, and every invariant that
// applies to its shape holds.
func TestPgSkipKeepsTheContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 5 scenarios on PostgreSQL (about 2 minutes): not in -short")
	}
	requireSubsetPasses(t, pgSkip, pgSkipSubset, nil)
}

// TestPgSkipPlantedBugsAreCaught runs each planted bug in its scenario: its
// invariant must fail, with violations, and the run must not pass.
func TestPgSkipPlantedBugsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 3 scenarios on PostgreSQL (about a minute): not in -short")
	}
	e := openEnv(t)
	work := t.TempDir()
	for _, p := range pgSkipPlants {
		t.Run(p.bug, func(t *testing.T) {
			a := load(t, filepath.Join(pgSkip, "manifest-"+p.bug+".yaml"))
			o := run(t, e, a, work, p.scenario, p.events)
			r := result(t, o, p.invariant)
			require.Equal(t, check.Fail, r.Verdict, "%s in %s: %s is %s: %s", p.bug, p.scenario, p.invariant, r.Verdict, r.Reason)
			require.NotEmpty(t, r.Violations)
			require.NotEqual(t, check.Pass, o.Verdict)
			t.Logf("%s caught by %s: %s", p.bug, p.invariant, r.Violations[0].Summary)
		})
	}
}
