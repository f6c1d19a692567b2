package bullmq_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

// Compatibility with the real bullmq npm package, each pinned version.

type completedJob struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Data map[string]any `json:"data"`
}

// runWorker starts a real Worker that exits after count completed jobs.
func runWorker(t *testing.T, node, alias, url, queue string, count int) *nodeProc {
	t.Helper()
	w := startNode(t, node, "worker.js", map[string]any{
		"pkg": alias, "url": url, "queue": queue, "count": count,
		// A worker blocked on the marker waits drainDelay seconds before it
		// looks at the wait list anyway: 30 s is past the script's bound, so
		// the test fails if an add forgets to wake it.
		"drainDelay": 30, "timeoutMs": 25000,
	})
	w.waitReady()
	return w
}

// waitWorkerBlocked waits until a worker is blocked on the marker, so that
// only the marker an add writes can wake it before its drainDelay.
func (e *env) waitWorkerBlocked() {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		clients, err := e.rdb.ClientList(ctxFor(e.t)).Result()
		require.NoError(e.t, err)
		return strings.Contains(clients, "cmd=bzpopmin")
	}, 30*time.Second, 20*time.Millisecond, "the worker never blocked on the marker")
}

func (p *nodeProc) completed() []completedJob {
	p.t.Helper()
	var out struct{ Done []completedJob }
	p.next(&out)
	p.finish()
	return out.Done
}

func runQueueOps(t *testing.T, node, alias, url, queue string, ops ...map[string]any) []string {
	t.Helper()
	p := startNode(t, node, "queue.js", map[string]any{"pkg": alias, "url": url, "queue": queue, "ops": ops, "timeoutMs": 25000})
	var results []string
	for range ops {
		var line struct{ Op, Result string }
		p.next(&line)
		results = append(results, line.Result)
	}
	p.finish()
	return results
}

func jsonData(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &v))
	return v
}

// eachBullMQ runs body once per pinned bullmq version (alias), each in a
// subtest on a fresh environment with opts; node is the Node.js binary.
func eachBullMQ(t *testing.T, opts bullmq.Options, body func(t *testing.T, node, alias string, e *env)) {
	node := requireNode(t)
	for _, alias := range bullmqAliases {
		t.Run(alias, func(t *testing.T) { body(t, node, alias, newEnv(t, opts)) })
	}
}

func TestCompatWorkerRunsGoJobs(t *testing.T) {
	eachBullMQ(t, bullmq.Options{RemoveOnComplete: true, DedupeHorizon: time.Hour}, func(t *testing.T, node, alias string, e *env) {
		w := runWorker(t, node, alias, e.server.URL(0), "ai-default", 3)
		e.waitWorkerBlocked()
		jobs := make([]bullmq.Job, 3)
		for i := range jobs {
			id := fmt.Sprintf("job-%d", i+1)
			jobs[i] = bullmq.Job{Queue: "ai-default", ID: id, Name: "ai-job",
				Data: fmt.Sprintf(`{"jobId":%q,"n":%d,"text":"é \"quoted\"","nested":{"a":[1,2]}}`, id, i)}
		}
		for _, r := range e.add(jobs...) {
			require.NoError(t, r.Err)
			require.Equal(t, bullmq.Added, r.Outcome)
		}
		done := w.completed()
		require.Len(t, done, 3)
		for i, d := range done { // one worker, concurrency 1: FIFO
			require.Equal(t, jobs[i].ID, d.ID)
			require.Equal(t, "ai-job", d.Name)
			require.Equal(t, jsonData(t, jobs[i].Data), d.Data)
		}
		for _, j := range jobs {
			require.False(t, e.exists("bull:ai-default:"+j.ID), "removeOnComplete in opts must make the worker delete %s", j.ID)
		}
		require.Equal(t, bullmq.Deduped, e.addOne(jobs[0]), "the duplicate trap: a re-add after removal")
		require.Empty(t, e.list("bull:ai-default:wait"))
	})
}

func TestCompatPausedQueueResumes(t *testing.T) {
	eachBullMQ(t, bullmq.Options{}, func(t *testing.T, node, alias string, e *env) {
		url := e.server.URL(0)
		require.Equal(t, bullmq.Added, e.addOne(job("q", "before-pause")))
		runQueueOps(t, node, alias, url, "q", map[string]any{"op": "pause"})
		require.Equal(t, bullmq.Added, e.addOne(job("q", "while-paused")))
		require.Equal(t, "while-paused", e.list("bull:q:paused")[0])
		require.False(t, e.exists("bull:q:marker"), "no marker while paused")
		runQueueOps(t, node, alias, url, "q", map[string]any{"op": "resume"})

		done := runWorker(t, node, alias, url, "q", 2).completed()
		ids := []string{done[0].ID, done[1].ID}
		require.ElementsMatch(t, []string{"before-pause", "while-paused"}, ids)
		for _, d := range done {
			require.Equal(t, jsonData(t, job("q", d.ID).Data), d.Data)
		}
	})
}

func TestCompatQueueAddAndGoAddSeeEachOther(t *testing.T) {
	eachBullMQ(t, bullmq.Options{}, func(t *testing.T, node, alias string, e *env) {
		url := e.server.URL(0)
		fromNode := map[string]any{"jobId": "by-node", "by": "node"}
		got := runQueueOps(t, node, alias, url, "q", map[string]any{
			"op": "add", "name": "ai-job", "data": fromNode, "opts": map[string]any{"jobId": "by-node"}})
		require.Equal(t, []string{"by-node"}, got)
		before := e.hash("bull:q:by-node")

		goAdd := bullmq.Job{Queue: "q", ID: "by-node", Name: "other", Data: `{"jobId":"by-node","by":"go"}`}
		require.Equal(t, bullmq.Duplicate, e.addOne(goAdd))
		require.Equal(t, before, e.hash("bull:q:by-node"), "a Go re-add must not touch a Node job")
		require.Equal(t, []event{
			{"event", "added", "jobId", "by-node", "name", "ai-job"},
			{"event", "waiting", "jobId", "by-node"},
			{"event", "duplicated", "jobId", "by-node"},
		}, e.events("q"))

		require.Equal(t, bullmq.Added, e.addOne(job("q", "by-go")))
		before = e.hash("bull:q:by-go")
		got = runQueueOps(t, node, alias, url, "q", map[string]any{
			"op": "add", "name": "ai-job", "data": map[string]any{"by": "node"}, "opts": map[string]any{"jobId": "by-go"}})
		require.Equal(t, []string{"by-go"}, got)
		require.Equal(t, before, e.hash("bull:q:by-go"), "a Node re-add must not touch a Go job")

		done := runWorker(t, node, alias, url, "q", 2).completed()
		require.Equal(t, "by-node", done[0].ID)
		require.Equal(t, fromNode, done[0].Data)
		require.Equal(t, "by-go", done[1].ID)
		require.Equal(t, jsonData(t, job("q", "by-go").Data), done[1].Data)
	})
}

func TestCompatQueueEventsSeeGoEvents(t *testing.T) {
	eachBullMQ(t, bullmq.Options{}, func(t *testing.T, node, alias string, e *env) {
		want := []string{"added:j-1:ai-job", "waiting:j-1", "duplicated:j-1"}
		l := startNode(t, node, "events.js", map[string]any{
			"pkg": alias, "url": e.server.URL(0), "queue": "q", "expect": want, "timeoutMs": 25000})
		l.waitReady()
		require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
		require.Equal(t, bullmq.Duplicate, e.addOne(job("q", "j-1")))
		var out struct{ Seen []string }
		l.next(&out)
		l.finish()
		require.Equal(t, want, out.Seen)
	})
}
