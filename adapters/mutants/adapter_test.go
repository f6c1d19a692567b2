package mutants_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/contract"

	"github.com/outboxchaos/outboxchaos/adapters/mutants"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/dispatcher"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/dispatchtest"
)

func TestMain(m *testing.M) { localtest.Main(m) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestCatalogNamesEveryBugOnceWithItsInvariant(t *testing.T) {
	require.Equal(t, dispatcher.Bugs(), mutants.Names(), "the catalog and the dispatcher know the same bugs, in order")
	invariant := regexp.MustCompile(`^I([1-9]|10)$`)
	scenario := regexp.MustCompile(`^[a-z][a-z0-9-]{0,40}$`)
	for _, m := range mutants.Catalog() {
		require.Regexp(t, invariant, m.Invariant, m.Name)
		require.Regexp(t, scenario, m.Scenario, m.Name)
		require.NotEmpty(t, m.Bug, m.Name)
		got, err := mutants.Lookup(m.Name)
		require.NoError(t, err)
		require.Equal(t, m, got)
	}
	_, err := mutants.Lookup("nope")
	require.ErrorContains(t, err, `unknown mutant "nope": use one of select-then-update,`)
}

func TestAdaptersDeclareTheirCapabilities(t *testing.T) {
	for _, name := range mutants.Names() {
		a, err := mutants.Adapter(name)
		require.NoError(t, err)
		require.Equal(t, "mutant-"+name, a.Name())
		c := a.Capabilities()
		require.NoError(t, c.Validate())
		require.ElementsMatch(t, supervisor.TuningVariables(), c.Tuning)
		require.True(t, c.CrashPoints && c.GracefulTerm)
		require.NoError(t, a.Schema().Validate())
	}
	_, err := mutants.Adapter("nope")
	require.ErrorContains(t, err, "unknown mutant")
}

func TestABlackBoxMutantHidesItsCrashPoints(t *testing.T) {
	a, err := mutants.Adapter(names.BugNoJobID + mutants.BlackBoxSuffix)
	require.NoError(t, err)
	require.Equal(t, "mutant-"+names.BugNoJobID+"+blackbox", a.Name())
	c := a.Capabilities()
	require.False(t, c.CrashPoints, "declared absent")
	require.True(t, c.GracefulTerm)
	require.NoError(t, a.Prepare(testCtx(t), t.TempDir()))
	spec, err := a.Spec(supervisor.Instance{Slot: "d1", ID: "d1", Env: map[string]string{
		supervisor.EnvInstanceID: "d1", supervisor.EnvFailpoints: "after-enqueue=crash",
	}})
	require.NoError(t, err)
	require.Contains(t, spec.Env, "OUTBOXCHAOS_MUTANT="+names.BugNoJobID, "still the same bug")
	for _, kv := range spec.Env {
		require.NotContains(t, kv, supervisor.EnvFailpoints+"=", "never passed to a black box")
	}
	_, err = mutants.Adapter("nope" + mutants.BlackBoxSuffix)
	require.ErrorContains(t, err, "unknown mutant")
}

// servers is a private database with the reference schema and a private
// Redis, and the contract environment pointing at them.
type servers struct {
	db  *sql.DB
	rdb *redis.Client
	env map[string]string
}

func newServers(t *testing.T) *servers {
	w := dispatchtest.NewServers(t)
	return &servers{db: w.DB, rdb: w.Redis, env: map[string]string{
		"OUTBOX_MYSQL_DSN": w.DSN, "OUTBOX_REDIS_URL": w.RedisURL, "OUTBOX_QUEUES": "ai-default",
		"OUTBOX_POLL_INTERVAL": "20ms", "OUTBOX_LEASE": "2s", "OUTBOX_PUBLISH_TIMEOUT": "500ms",
		"OUTBOX_MAX_ATTEMPTS": "5", "OUTBOX_BACKOFF_BASE": "100ms", "OUTBOX_BACKOFF_MAX": "1s",
	}}
}

func (s *servers) addEvents(t *testing.T, n int) {
	for i := 0; i < n; i++ {
		job := fmt.Sprintf("job-%d", i)
		_, err := s.db.Exec(`INSERT INTO ai_jobs (id, queue_name, status) VALUES (?, 'ai-default', 'created')`, job)
		require.NoError(t, err)
		_, err = s.db.Exec(`INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES (?, ?, JSON_OBJECT('jobId', ?))`,
			reference.EventTypeEnqueue, job, job)
		require.NoError(t, err)
	}
}

func (s *servers) count(t *testing.T, query string) int {
	var n int
	require.NoError(t, s.db.QueryRow(query).Scan(&n))
	return n
}

func prepare(t *testing.T, a supervisor.Adapter, work string) *supervisor.Supervisor {
	require.NoError(t, a.Prepare(testCtx(t), work))
	sup := supervisor.New(a, history.NewRecorder(history.Meta{}), filepath.Join(work, "logs", a.Name()))
	t.Cleanup(func() { require.NoError(t, sup.Close()) })
	return sup
}

// TestBaseBinaryMovesEventsAndStopsGracefully runs the base as two real
// processes, then stops them with SIGTERM.
func TestBaseBinaryMovesEventsAndStopsGracefully(t *testing.T) {
	s := newServers(t)
	s.addEvents(t, 300)
	a, err := mutants.BaseAdapter()
	require.NoError(t, err)
	sup := prepare(t, a, t.TempDir())
	for _, slot := range []string{"d1", "d2"} {
		_, err := sup.Start(testCtx(t), slot, s.env)
		require.NoError(t, err)
	}
	deadline := time.Now().Add(time.Minute)
	for s.count(t, `SELECT COUNT(*) FROM outbox_events WHERE status = 'published'`) < 300 {
		require.True(t, time.Now().Before(deadline), "events not published in time")
		time.Sleep(50 * time.Millisecond)
	}
	for _, slot := range []string{"d1", "d2"} {
		code, err := sup.Term(slot, 30*time.Second)
		require.NoError(t, err)
		require.Zero(t, code, "a graceful stop exits 0")
	}
	require.Zero(t, s.count(t, `SELECT COUNT(*) FROM outbox_events WHERE attempts <> 1`))
	require.Equal(t, 300, s.count(t, `SELECT COUNT(*) FROM ai_jobs WHERE status = 'queued'`))
	wait, err := s.rdb.LRange(context.Background(), "bull:ai-default:wait", 0, -1).Result()
	require.NoError(t, err)
	require.Len(t, wait, 300)
	require.Empty(t, sup.UnexpectedExits())
}

// TestMutantBinaryCrashesAtItsFailpoint: the mutant binary selected by the
// adapter crashes at a named point exactly as the reference does, and the
// harness's own OUTBOXCHAOS_MUTANT never leaks into an instance.
func TestMutantBinaryCrashesAtItsFailpoint(t *testing.T) {
	t.Setenv(names.EnvMutant, names.BugNoBackoff)
	s := newServers(t)
	s.addEvents(t, 5)
	a, err := mutants.Adapter(names.BugNoJobID)
	require.NoError(t, err)
	sup := prepare(t, a, t.TempDir())
	spec, err := a.Spec(supervisor.Instance{Slot: "d1", ID: "d1", Env: s.env})
	require.NoError(t, err)
	joined := strings.Join(spec.Env, "\n")
	require.Contains(t, joined, names.EnvMutant+"="+names.BugNoJobID)
	require.NotContains(t, joined, names.BugNoBackoff)

	env := map[string]string{supervisor.EnvFailpoints: "after-enqueue=crash"}
	for k, v := range s.env {
		env[k] = v
	}
	_, err = sup.Start(testCtx(t), "d1", env)
	require.NoError(t, err)
	select {
	case ev := <-sup.CrashPoints():
		require.Equal(t, string(contract.AfterEnqueue), ev.Point)
		require.Equal(t, "killed", ev.Exit.Signal)
	case <-time.After(time.Minute):
		t.Fatal("no crash at after-enqueue")
	}
	// The bug ran: the job is named by BullMQ's counter, not its id.
	data, err := s.rdb.HGet(context.Background(), "bull:ai-default:1", "data").Result()
	require.NoError(t, err)
	require.Contains(t, data, `"jobId":"job-`)
	require.Positive(t, s.count(t, `SELECT COUNT(*) FROM outbox_events WHERE status = 'processing'`))
}

// TestUnknownMutantExitsTwoNamingTheValidOnes runs the binary directly with
// a name the catalog does not have.
func TestUnknownMutantExitsTwoNamingTheValidOnes(t *testing.T) {
	s := newServers(t)
	a, err := mutants.BaseAdapter()
	require.NoError(t, err)
	work := t.TempDir()
	prepare(t, a, work)
	cmd := exec.Command(filepath.Join(work, "bin", "mutant"))
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "OUTBOX_INSTANCE_ID=d1", names.EnvMutant+"=off-by-one")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "want a non-zero exit, got %v", err)
	require.Equal(t, 2, exit.ExitCode())
	line := strings.TrimRight(stderr.String(), "\n")
	require.NotContains(t, line, "\n", "one line")
	require.Contains(t, line, `OUTBOXCHAOS_MUTANT="off-by-one": unknown mutant; use one of `+strings.Join(dispatcher.Bugs(), ", "))
}
