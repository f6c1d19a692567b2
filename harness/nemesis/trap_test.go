package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// idleAdapter starts a process that only sleeps: the test itself plays the
// dispatcher's writes, claiming rows in its name and adding jobs in Redis.
type idleAdapter struct{}

func (idleAdapter) Name() string                          { return "idle" }
func (idleAdapter) Prepare(context.Context, string) error { return nil }
func (idleAdapter) Schema() schema.Mapping                { return schema.Reference() }
func (idleAdapter) Capabilities() supervisor.Capabilities { return supervisor.Capabilities{} }
func (idleAdapter) Spec(inst supervisor.Instance) (supervisor.Spec, error) {
	return supervisor.Spec{Path: "sleep", Args: []string{"120"}, Env: supervisor.HarnessEnviron(inst.Env)}, nil
}

type trapRig struct {
	n   *Nemesis
	rdb *redis.Client
	rec *history.Recorder
	dsn string // the test database, for connections through the slot's MySQL link
}

func newTrapRig(t *testing.T) *trapRig {
	t.Helper()
	m := schema.Reference()
	db, dsn := localtest.MySQLWith(t, m.DDL...)
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	redisSrv, rdb := localtest.RedisClient(t)
	rec := history.NewRecorder(history.Meta{Scenario: t.Name()})
	obs := observe.NewRedisObserver(rdb, "bull", []string{"q"}, rec)
	require.NoError(t, obs.Start(localtest.Context(t)))
	t.Cleanup(func() { require.NoError(t, obs.Stop()) })
	proxy := faultproxy.NewServer(rand.New(rand.NewSource(1)))
	t.Cleanup(func() { _ = proxy.Close() })
	links := map[string]*faultproxy.Proxy{}
	for dep, up := range map[string]string{"mysql": cfg.Addr, "redis": redisSrv.Addr()} {
		p, err := proxy.Link(dep+"/d1", up)
		require.NoError(t, err)
		links[dep+"/d1"] = p
	}
	sup := supervisor.New(idleAdapter{}, rec, filepath.Join(t.TempDir(), "logs"))
	t.Cleanup(func() { require.NoError(t, sup.Close()) })
	n, err := New(Config{Supervisor: sup, Links: links, Recorder: rec, Seed: 1,
		Slots: []string{"d1"}, SlotEnv: map[string]map[string]string{"d1": {}}, DB: db, Observer: obs, Schema: m})
	require.NoError(t, err)
	_, err = sup.Start(localtest.Context(t), "d1", map[string]string{})
	require.NoError(t, err)
	return &trapRig{n: n, rdb: rdb, rec: rec, dsn: dsn}
}

// claim inserts an event of job held by the slot's current instance, and
// one of other held by nobody; it returns the held event's id.
func (r *trapRig) claim(t *testing.T, job, other string) string {
	t.Helper()
	inst := r.n.sup.Instances()["d1"]
	for _, j := range []string{job, other} {
		_, err := r.n.db.Exec("INSERT INTO ai_jobs (id, queue_name, status) VALUES (?, 'q', 'created')", j)
		require.NoError(t, err)
	}
	res, err := r.n.db.Exec("INSERT INTO outbox_events (event_type, aggregate_id, payload, status, locked_by) VALUES ('ai.job', ?, '{}', 'processing', ?)", job, inst)
	require.NoError(t, err)
	_, err = r.n.db.Exec("INSERT INTO outbox_events (event_type, aggregate_id, payload, status) VALUES ('ai.job', ?, '{}', 'processing')", other)
	require.NoError(t, err)
	id, err := res.LastInsertId()
	require.NoError(t, err)
	return fmt.Sprint(id)
}

// soleFault asserts that run recorded one fault, of kind, on inst, for the
// held events, and returns it.
func soleFault(t *testing.T, run history.Run, kind, inst, held string) history.Fault {
	t.Helper()
	require.Len(t, run.Faults, 1)
	f := run.Faults[0]
	require.Equal(t, kind, f.Kind)
	require.Equal(t, inst, f.Target)
	require.Equal(t, held, f.Params["events"])
	return f
}

// Adds in the styles a black-box dispatcher may use: bullmq's own (hash,
// wait, "added" entry), hash and push only, and no jobId (BullMQ's counter
// id, the row in data.jobId).
const (
	addBullMQ = `redis.call("HSET", KEYS[1], "data", ARGV[2], "opts", "{}")
redis.call("LPUSH", KEYS[2], ARGV[1])
redis.call("XADD", KEYS[3], "*", "event", "added", "jobId", ARGV[1])
return 1`
	addNoStream = `redis.call("HSET", KEYS[1], "data", ARGV[2]) redis.call("RPUSH", KEYS[2], ARGV[1]) return 1`
)

func (r *trapRig) add(ctx context.Context, script, bullID, data string) error {
	return r.rdb.Eval(ctx, script, []string{"bull:q:" + bullID, "bull:q:wait", "bull:q:events"}, bullID, data).Err()
}

// addAfter adds job-a's job in bullmq's style as bullID once the trap the
// test arms next has had after to arm.
func (r *trapRig) addAfter(ctx context.Context, after time.Duration, bullID string) {
	go func() {
		time.Sleep(after)
		_ = r.add(ctx, addBullMQ, bullID, `{"jobId":"job-a"}`)
	}()
}

func TestWindowTrapFiresForEveryAddStyle(t *testing.T) {
	for _, tc := range []struct {
		name, script, bullID string
	}{
		{"bullmq", addBullMQ, "job-a"},
		{"no-stream", addNoStream, "job-a"},
		{"no-jobid", addBullMQ, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTrapRig(t)
			ctx := localtest.Context(t)
			held := r.claim(t, "job-a", "job-b")
			inst := r.n.sup.Instances()["d1"]
			go func() {
				time.Sleep(300 * time.Millisecond) // the trap is armed
				// A job of an event the instance does not hold first: no trap.
				_ = r.add(ctx, addNoStream, "job-b", `{"jobId":"job-b"}`)
				time.Sleep(100 * time.Millisecond)
				_ = r.add(ctx, tc.script, tc.bullID, `{"jobId":"job-a"}`)
			}()
			res, err := r.n.trapWindow(ctx, "d1", 10*time.Second, 0)
			require.NoError(t, err)
			require.True(t, res.landed)
			run := r.rec.Snapshot()
			f := soleFault(t, run, supervisor.FaultWindowTrap, inst, held)
			require.Equal(t, "job-a", f.Params["job"])
			require.Equal(t, tc.bullID, f.Params["bull_id"])
			require.NotEmpty(t, f.Params["source"])
			require.Contains(t, actionsOf(run, inst), "kill", "the armed instance was SIGKILLed")
			require.True(t, r.n.alive("d1"), "and restarted")
			require.NotEqual(t, inst, r.n.sup.Instances()["d1"])
		})
	}
}

func TestWindowTrapRecordsAMiss(t *testing.T) {
	r := newTrapRig(t)
	ctx := localtest.Context(t)
	r.claim(t, "job-a", "job-b")
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = r.add(ctx, addNoStream, "job-b", `{"jobId":"job-b"}`)
	}()
	res, err := r.n.trapWindow(ctx, "d1", time.Second, 0)
	require.NoError(t, err)
	require.False(t, res.landed)
	require.Equal(t, 1, res.signals)
	f := r.rec.Snapshot().Faults
	require.Len(t, f, 1)
	require.Equal(t, FaultWindowTrapMiss, f[0].Kind)
	require.Equal(t, "1", f[0].Params["not_held"])
	require.Contains(t, f[0].Params["reason"], "no job of an event the instance holds")
}

// A TrapCrashes try gives up once the armed instance held none of a run of
// creations (it is losing the claim races): the job of its own event that
// comes later is left alone, and the miss says why.
func TestWindowTrapGivesUpOnAnInstanceThatClaimsNothing(t *testing.T) {
	r := newTrapRig(t)
	ctx := localtest.Context(t)
	r.claim(t, "job-a", "job-b")
	go func() {
		time.Sleep(200 * time.Millisecond)
		for _, id := range []string{"b1", "b2", "b3"} {
			_ = r.add(ctx, addNoStream, id, `{"jobId":"job-b"}`)
		}
		time.Sleep(2 * time.Second)
		_ = r.add(ctx, addNoStream, "a1", `{"jobId":"job-a"}`)
	}()
	res, err := r.n.trapWindow(ctx, "d1", 10*time.Second, 3)
	require.NoError(t, err)
	require.False(t, res.landed, "given up before the instance's own job")
	require.Equal(t, 3, res.signals)
	f := r.rec.Snapshot().Faults
	require.Len(t, f, 1)
	require.Equal(t, FaultWindowTrapMiss, f[0].Kind)
	require.Contains(t, f[0].Params["reason"], "held none of the 3 jobs created while armed")
}

// A TrapCrashes try ends once every planned event is final: no job is left
// to create, and waiting out the try's deadline would only hold the run up.
func TestWindowTrapEndsWhenTheWorkloadIsOver(t *testing.T) {
	r := newTrapRig(t)
	ctx := localtest.Context(t)
	var final atomic.Int32
	r.n.planned = 2
	r.n.progress = func(context.Context) (int, int, error) { return int(final.Load()), 2, nil }
	go func() {
		time.Sleep(500 * time.Millisecond)
		final.Store(2)
	}()
	res, err := r.n.trapWindow(ctx, "d1", time.Minute, starvedSignals)
	require.NoError(t, err)
	require.False(t, res.landed)
	f := r.rec.Snapshot().Faults
	require.Len(t, f, 1)
	require.Equal(t, FaultWindowTrapMiss, f[0].Kind)
	require.Contains(t, f[0].Params["reason"], "the workload is over")
	require.Less(t, f[0].End.Sub(f[0].Start), time.Minute, "ended before its deadline")
}

func TestPauseTrapStopsTheHolderPastItsLease(t *testing.T) {
	r := newTrapRig(t)
	ctx := localtest.Context(t)
	held := r.claim(t, "job-a", "job-b")
	inst := r.n.sup.Instances()["d1"]
	r.addAfter(ctx, 300*time.Millisecond, "7")
	landed, err := r.n.PauseTrap(ctx, Pause{Slot: "d1", For: 200 * time.Millisecond, Settle: 50 * time.Millisecond}, 10*time.Second)
	require.NoError(t, err)
	require.True(t, landed)
	run := r.rec.Snapshot()
	f := soleFault(t, run, FaultPauseTrap, inst, held)
	require.Equal(t, "7", f.Params["bull_id"])
	require.GreaterOrEqual(t, f.End.Sub(f.Start), 250*time.Millisecond)
	require.Equal(t, []string{"start", "stop", "cont"}, actionsOf(run, inst))
	require.True(t, r.n.alive("d1"))
	require.Equal(t, inst, r.n.sup.Instances()["d1"], "the zombie runs on")
}

// While runs with the instance stopped; a While longer than For keeps it
// stopped until While ends, and a While that fails still resumes it.
func TestPauseTrapRunsWhileWithTheInstanceStopped(t *testing.T) {
	r := newTrapRig(t)
	ctx := localtest.Context(t)
	r.claim(t, "job-a", "job-b")
	inst := r.n.sup.Instances()["d1"]
	actions := func() []string { return actionsOf(r.rec.Snapshot(), inst) }
	var during []string
	r.addAfter(ctx, 300*time.Millisecond, "7")
	p := Pause{Slot: "d1", For: 100 * time.Millisecond, While: func(ctx context.Context) error {
		during = actions()
		time.Sleep(400 * time.Millisecond)
		return errors.New("server would not start")
	}}
	landed, err := r.n.PauseTrap(ctx, p, 10*time.Second)
	require.ErrorContains(t, err, "while paused: server would not start")
	require.True(t, landed)
	require.Equal(t, []string{"start", "stop"}, during)
	require.Equal(t, []string{"start", "stop", "cont"}, actions(), "resumed after the failed While")
	f := r.rec.Snapshot().Faults
	require.GreaterOrEqual(t, f[len(f)-1].End.Sub(f[len(f)-1].Start), 400*time.Millisecond)
}

// actionsOf lists what the supervisor did to instance (start, stop, cont,
// kill, ...), in order.
func actionsOf(run history.Run, instance string) []string {
	var acts []string
	for _, p := range run.Processes {
		if p.Instance == instance {
			acts = append(acts, p.Action)
		}
	}
	return acts
}

// The finalize trap holds the instance's finalize after its add: the
// UPDATE runs, its COMMIT waits in the proxy for the hold, the row stays
// locked meanwhile, and the span is recorded from the arming to the
// release.
func TestFinalizeTrapHoldsTheCommitAfterTheAdd(t *testing.T) {
	r := newTrapRig(t)
	ctx := localtest.Context(t)
	held := r.claim(t, "job-a", "job-b")
	inst := r.n.sup.Instances()["d1"]
	db := localtest.MySQLVia(t, r.dsn, r.n.links["mysql/d1"].Addr())
	require.NoError(t, db.PingContext(ctx))
	committed := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		if err := r.add(ctx, addBullMQ, "7", `{"jobId":"job-a"}`); err != nil {
			committed <- err
			return
		}
		time.Sleep(windowLatency) // the instance learns of its add this late
		tx, err := db.BeginTx(ctx, nil)
		if err == nil {
			_, err = tx.ExecContext(ctx, "UPDATE outbox_events SET status = 'published' WHERE id = ?", held)
		}
		if err == nil {
			err = tx.Commit()
		}
		committed <- err
	}()
	hold := 700 * time.Millisecond
	landed, err := r.n.FinalizeTrap(ctx, "d1", hold, 50*time.Millisecond, 10*time.Second)
	require.NoError(t, err)
	require.True(t, landed)
	require.NoError(t, <-committed)
	run := r.rec.Snapshot()
	f := soleFault(t, run, FaultFinalizeTrap, inst, held)
	heldAt, err := time.Parse(time.RFC3339Nano, f.Params["held_at"])
	require.NoError(t, err)
	require.True(t, heldAt.After(f.Start), "armed before the COMMIT came")
	require.GreaterOrEqual(t, f.End.Sub(heldAt), hold)
	require.True(t, r.n.alive("d1"), "a held COMMIT stops nothing else")
}

// No COMMIT after the add (a finalize without a transaction, or none at
// all): each try is a miss with its reason, and the trap gives up at its
// deadline.
func TestFinalizeTrapRecordsAMissWithoutACommit(t *testing.T) {
	r := newTrapRig(t)
	ctx := localtest.Context(t)
	r.claim(t, "job-a", "job-b")
	r.addAfter(ctx, 300*time.Millisecond, "7")
	landed, err := r.n.FinalizeTrap(ctx, "d1", time.Second, 0, commitWait+3*time.Second)
	require.NoError(t, err)
	require.False(t, landed)
	run := r.rec.Snapshot()
	require.NotEmpty(t, run.Faults)
	f := run.Faults[0]
	require.Equal(t, FaultFinalizeTrapMiss, f.Kind)
	require.Contains(t, f.Params["reason"], "no COMMIT came on the instance's MySQL link")
	for _, f := range run.Faults {
		require.NotEqual(t, FaultFinalizeTrap, f.Kind)
	}
}

// The network trap adds its fault to the instance's database link when the
// add of an event it holds shows in Redis: the finalize the instance sends
// after learning of its add is held by the half-open link, which records
// what it held under the instance's link, and heals when the span is over.
func TestNetworkTrapHoldsTheFinalizeAfterTheAdd(t *testing.T) {
	r := newTrapRig(t)
	ctx := localtest.Context(t)
	held := r.claim(t, "job-a", "job-b")
	inst := r.n.sup.Instances()["d1"]
	db := localtest.MySQLVia(t, r.dsn, r.n.links["mysql/d1"].Addr())
	require.NoError(t, db.PingContext(ctx))
	finalized := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		if err := r.add(ctx, addBullMQ, "7", `{"jobId":"job-a"}`); err != nil {
			finalized <- err
			return
		}
		time.Sleep(windowLatency) // the instance learns of its add this late
		stmt, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		_, err := db.ExecContext(stmt, "UPDATE outbox_events SET status = 'published' WHERE id = ?", held)
		finalized <- err
	}()
	span := time.Second
	landed, err := r.n.NetworkAtFinalize(ctx, "d1", faultproxy.HalfOpen{}, span, 10*time.Second)
	require.NoError(t, err)
	require.True(t, landed)
	require.Error(t, <-finalized, "the finalize after the add met the half-open link")
	run := r.rec.Snapshot()
	require.Len(t, run.Faults, 1)
	f := run.Faults[0]
	require.Equal(t, "half-open", f.Kind)
	require.Equal(t, "mysql/"+inst, f.Target)
	require.Equal(t, "1", f.Params["held"], "the finalize was held on the open connection")
	require.GreaterOrEqual(t, f.End.Sub(f.Start), span)
	require.Empty(t, r.n.links["mysql/d1"].Active(), "healed after the span")
	var status string
	require.NoError(t, db.QueryRowContext(ctx, "SELECT status FROM outbox_events WHERE id = ?", held).Scan(&status))
	require.Equal(t, "processing", status, "the held statement never ran")
}
