package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/reference/dispatchtest"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// TestBinary builds the real dispatcher binary once and runs it.
func TestBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "dispatcher")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	t.Run("config errors exit 2 with one line", func(t *testing.T) { testConfigErrors(t, bin) })
	t.Run("crash after enqueue then restart gives one job", func(t *testing.T) { testCrashAfterEnqueue(t, bin) })
	t.Run("SIGTERM releases held rows and exits 0", func(t *testing.T) { testSIGTERM(t, bin) })
}

func testConfigErrors(t *testing.T, bin string) {
	base := []string{
		"OUTBOX_MYSQL_DSN=root@tcp(127.0.0.1:1)/outbox", "OUTBOX_REDIS_URL=redis://127.0.0.1:1/0",
		"OUTBOX_QUEUES=ai-default",
	}
	cases := []struct{ extra, want string }{
		{"OUTBOX_LEASES=2s", `dispatcher: config: OUTBOX_LEASES: unknown variable; did you mean OUTBOX_LEASE?`},
		{"OUTBOX_LEASE=abc", `dispatcher: config: OUTBOX_LEASE="abc": not a duration (e.g. 30s)`},
		{"OUTBOX_BATCH_SIZE=0", `dispatcher: config: OUTBOX_BATCH_SIZE="0": must be between 1 and 10000`},
		{"OUTBOX_FAILPOINTS=after-claim=explode", `dispatcher: config: OUTBOX_FAILPOINTS="after-claim=explode": failpoint after-claim: unknown action "explode" (known: crash, sleep(<duration>))`},
	}
	for _, c := range cases {
		cmd := exec.Command(bin)
		cmd.Env = append(append([]string{"PATH=" + os.Getenv("PATH")}, base...), c.extra)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		started := time.Now()
		err := cmd.Run()
		var exitErr *exec.ExitError
		require.True(t, errors.As(err, &exitErr), "%s: want an exit error, got %v", c.extra, err)
		require.Equal(t, 2, exitErr.ExitCode(), c.extra)
		require.Equal(t, c.want+"\n", stderr.String(), "exactly one line on stderr")
		require.Empty(t, stdout.String())
		require.Less(t, time.Since(started), 10*time.Second, "a config error exits at once")
	}
}

// world is a private MySQL (with the schema) and Redis for the binary.
type world struct {
	t        *testing.T
	db       *sql.DB
	dsn      string
	redisURL string
	rdb      *redis.Client
}

func newWorld(t *testing.T) *world {
	s := dispatchtest.NewServers(t)
	return &world{t: t, db: s.DB, dsn: s.DSN, redisURL: s.RedisURL, rdb: s.Redis}
}

func (w *world) addValid(jobID string) int64 {
	tx, err := w.db.Begin()
	require.NoError(w.t, err)
	_, err = tx.Exec(`INSERT INTO ai_jobs (id, queue_name, status) VALUES (?, 'ai-default', 'created')`, jobID)
	require.NoError(w.t, err)
	res, err := tx.Exec(`INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES ('ai.job.enqueue', ?, JSON_OBJECT('jobId', ?))`, jobID, jobID)
	require.NoError(w.t, err)
	require.NoError(w.t, tx.Commit())
	id, err := res.LastInsertId()
	require.NoError(w.t, err)
	return id
}

func (w *world) status(id int64) (status string, lockedBy sql.NullString, attempts int) {
	require.NoError(w.t, w.db.QueryRow(`SELECT status, locked_by, attempts FROM outbox_events WHERE id = ?`, id).
		Scan(&status, &lockedBy, &attempts))
	return
}

// proc is one running dispatcher binary.
type proc struct {
	cmd    *exec.Cmd
	stderr *dispatchtest.Output
	done   chan error
}

func (w *world) start(bin, instance string, extra ...string) *proc {
	cmd := exec.Command(bin)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"OUTBOX_MYSQL_DSN=" + w.dsn, "OUTBOX_REDIS_URL=" + w.redisURL,
		"OUTBOX_QUEUES=ai-default", "OUTBOX_INSTANCE_ID=" + instance,
		"OUTBOX_POLL_INTERVAL=20ms", "OUTBOX_LEASE=1s", "OUTBOX_PUBLISH_TIMEOUT=400ms",
		"OUTBOX_RECOVERY_MARGIN=100ms", "OUTBOX_BACKOFF_BASE=100ms", "OUTBOX_BACKOFF_MAX=1s",
	}, extra...)
	p := &proc{cmd: cmd, stderr: &dispatchtest.Output{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	require.NoError(w.t, cmd.Start())
	go func() { p.done <- cmd.Wait() }()
	w.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if w.t.Failed() {
			w.t.Logf("%s stderr:\n%s", instance, p.stderr.String())
		}
	})
	return p
}

// wait returns the process's exit status.
func (p *proc) wait(t *testing.T) syscall.WaitStatus {
	t.Helper()
	select {
	case <-p.done:
		p.done <- nil // let the cleanup's receive return
	case <-time.After(30 * time.Second):
		t.Fatalf("the dispatcher did not exit; stderr:\n%s", p.stderr.String())
	}
	return p.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

func (w *world) waitFor(what string, cond func() bool) {
	w.t.Helper()
	require.Eventually(w.t, cond, 30*time.Second, 10*time.Millisecond, "waiting for %s", what)
}

func testCrashAfterEnqueue(t *testing.T, bin string) {
	w := newWorld(t)
	ctx := context.Background()
	id := w.addValid("job-1")

	first := w.start(bin, "d1", "OUTBOX_FAILPOINTS=after-enqueue=crash@nth:1")
	ws := first.wait(t)
	require.True(t, ws.Signaled(), "the failpoint kills the process")
	require.Equal(t, syscall.SIGKILL, ws.Signal())
	var crashLines int
	for _, line := range strings.Split(first.stderr.String(), "\n") {
		if line == "failpoint after-enqueue: crash" {
			crashLines++
		}
	}
	require.Equal(t, 1, crashLines, "exactly one crash line; stderr:\n%s", first.stderr.String())

	status, lockedBy, _ := w.status(id)
	require.Equal(t, "processing", status, "the crash came before the finalize")
	require.Equal(t, "d1", lockedBy.String)
	require.EqualValues(t, 1, w.rdb.Exists(ctx, "bull:ai-default:job-1").Val(), "the job was added")

	second := w.start(bin, "d2")
	w.waitFor("the restarted instance to publish", func() bool { s, _, _ := w.status(id); return s == "published" })
	require.NoError(t, second.cmd.Process.Signal(syscall.SIGTERM))
	require.Equal(t, 0, second.wait(t).ExitStatus())

	status, lockedBy, attempts := w.status(id)
	require.Equal(t, "published", status)
	require.Equal(t, "d2", lockedBy.String)
	require.Equal(t, 2, attempts, "the lost claim counts")
	var jobStatus string
	require.NoError(t, w.db.QueryRow(`SELECT status FROM ai_jobs WHERE id = 'job-1'`).Scan(&jobStatus))
	require.Equal(t, "queued", jobStatus)

	require.Equal(t, []string{"job-1"}, w.rdb.LRange(ctx, "bull:ai-default:wait", 0, -1).Val(), "queued once")
	require.Equal(t, "2", w.rdb.Get(ctx, "bull:ai-default:id").Val(), "two add calls reached Redis")
	added := 0
	for _, en := range w.rdb.XRange(ctx, "bull:ai-default:events", "-", "+").Val() {
		if en.Values["event"] == "added" && en.Values["jobId"] == "job-1" {
			added++
		}
	}
	require.Equal(t, 1, added, "BullMQ created the job exactly once")
}

func testSIGTERM(t *testing.T, bin string) {
	w := newWorld(t)
	ctx := context.Background()
	id := w.addValid("job-1")
	_, err := w.db.Exec(`UPDATE outbox_events SET last_error = 'an earlier failure',
		available_at = NOW(6) - INTERVAL 1 MINUTE WHERE id = ?`, id)
	require.NoError(t, err)
	var availableBefore time.Time
	require.NoError(t, w.db.QueryRow(`SELECT available_at FROM outbox_events WHERE id = ?`, id).Scan(&availableBefore))

	p := w.start(bin, "d1", "OUTBOX_FAILPOINTS=after-claim=sleep(2s)")
	w.waitFor("the claim", func() bool { s, _, _ := w.status(id); return s == "processing" })
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	ws := p.wait(t)
	require.True(t, ws.Exited(), "stderr:\n%s", p.stderr.String())
	require.Equal(t, 0, ws.ExitStatus())

	var status string
	var lastError, lockToken sql.NullString
	var attempts int
	var availableAt time.Time
	require.NoError(t, w.db.QueryRow(`SELECT status, last_error, lock_token, attempts, available_at FROM outbox_events WHERE id = ?`, id).
		Scan(&status, &lastError, &lockToken, &attempts, &availableAt))
	require.Equal(t, "pending", status)
	require.Equal(t, "an earlier failure", lastError.String, "a release never touches last_error")
	require.False(t, lockToken.Valid)
	require.Equal(t, 1, attempts)
	require.Equal(t, availableBefore, availableAt, "no backoff")
	require.Zero(t, w.rdb.Exists(ctx, "bull:ai-default:job-1").Val(), "nothing added after the stop")
	require.NotContains(t, p.stderr.String(), `"level":"ERROR"`)
}
