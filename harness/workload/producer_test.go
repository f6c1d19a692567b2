package workload_test

import (
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

var allKinds = workload.Mix{Valid: 5, UnknownType: 1, MissingJob: 1, QueueDenied: 1, IllegalJobID: 1, AlreadyQueued: 1}

func producerConfig(db *sql.DB, seed uint64, runID string, rec *history.Recorder) workload.ProducerConfig {
	return workload.ProducerConfig{
		DB: db, Schema: schema.Reference(), Queues: []string{"ai-default", "ai-bulk"},
		Mix: allKinds, Rand: rand.New(rand.NewPCG(seed, seed)), Recorder: rec, RunID: runID,
	}
}

// producerRig is a fresh reference database, a recorder, and a producer
// configuration on both.
func producerRig(t *testing.T, seed uint64, runID string) (*sql.DB, *history.Recorder, workload.ProducerConfig) {
	t.Helper()
	db := referenceDB(t)
	rec := history.NewRecorder(history.Meta{})
	return db, rec, producerConfig(db, seed, runID, rec)
}

// recorded returns the events rec holds, which must be n.
func recorded(t *testing.T, rec *history.Recorder, n int) []history.Event {
	t.Helper()
	events := rec.Snapshot().Events
	require.Len(t, events, n)
	return events
}

func newProducer(t *testing.T, cfg workload.ProducerConfig) *workload.Producer {
	t.Helper()
	p, err := workload.NewProducer(cfg)
	require.NoError(t, err)
	return p
}

type outboxRow struct {
	typ, jobID, payload, status string
}

type jobRow struct {
	queue, status string
}

func readOutbox(t *testing.T, db *sql.DB) map[int64]outboxRow {
	return readRows(t, db, "SELECT id, event_type, aggregate_id, payload, status FROM outbox_events",
		func(rows *sql.Rows) (id int64, r outboxRow, err error) {
			err = rows.Scan(&id, &r.typ, &r.jobID, &r.payload, &r.status)
			return id, r, err
		})
}

func readJobs(t *testing.T, db *sql.DB) map[string]jobRow {
	return readRows(t, db, "SELECT id, queue_name, status FROM ai_jobs", func(rows *sql.Rows) (id string, r jobRow, err error) {
		err = rows.Scan(&id, &r.queue, &r.status)
		return id, r, err
	})
}

// readRows runs q and keys each row that scan reads by the id it returns.
func readRows[K comparable, V any](t *testing.T, db *sql.DB, q string, scan func(*sql.Rows) (K, V, error)) map[K]V {
	t.Helper()
	rows, err := db.Query(q)
	require.NoError(t, err)
	defer rows.Close()
	out := map[K]V{}
	for rows.Next() {
		id, r, err := scan(rows)
		require.NoError(t, err)
		out[id] = r
	}
	require.NoError(t, rows.Err())
	return out
}

var legalID = regexp.MustCompile(`^j-[A-Za-z0-9_-]+-[0-9]+$`)
var allDigits = regexp.MustCompile(`^[0-9]+$`)

// checkAgainstRows asserts that every recorded event has exactly the rows its
// kind calls for, and that nothing else was written.
func checkAgainstRows(t *testing.T, db *sql.DB, events []history.Event) map[string]int {
	t.Helper()
	outbox, jobs := readOutbox(t, db), readJobs(t, db)
	require.Len(t, outbox, len(events), "one outbox row per recorded event")
	counts := map[string]int{}
	jobRows := 0
	for _, e := range events {
		counts[e.Kind]++
		row, ok := outbox[e.ID]
		require.True(t, ok, "event %d has no outbox row", e.ID)
		require.Equal(t, e.JobID, row.jobID)
		require.Equal(t, e.Type, row.typ)
		require.Equal(t, "pending", row.status)
		var payload map[string]string
		require.NoError(t, json.Unmarshal([]byte(row.payload), &payload))
		require.Equal(t, map[string]string{"jobId": e.JobID}, payload)
		job, hasJob := jobs[e.JobID]
		require.Equal(t, e.Kind != history.KindMissingJob, hasJob, "jobs row of %s (%s)", e.JobID, e.Kind)
		if hasJob {
			jobRows++
			require.Equal(t, e.Queue, job.queue)
		}
		checkKind(t, e, job)
	}
	require.Len(t, jobs, jobRows, "no jobs rows beyond the recorded events")
	return counts
}

func checkKind(t *testing.T, e history.Event, job jobRow) {
	t.Helper()
	wantType, wantStatus := workload.EnqueueEventType, "created"
	switch e.Kind {
	case history.KindValid:
		require.Contains(t, []string{"ai-default", "ai-bulk"}, e.Queue)
	case history.KindUnknownType:
		wantType = workload.UnknownEventType
	case history.KindMissingJob:
		wantStatus = ""
	case history.KindQueueDenied:
		require.Equal(t, workload.DefaultDeniedQueue, e.Queue)
	case history.KindIllegalJobID:
		require.True(t, allDigits.MatchString(e.JobID) || strings.Contains(e.JobID, ":"), "illegal id %q", e.JobID)
	case history.KindAlreadyQueued:
		wantStatus = "queued"
	default:
		t.Fatalf("unknown kind %q", e.Kind)
	}
	require.Equal(t, wantType, e.Type, "type of %s event", e.Kind)
	require.Equal(t, wantStatus, job.status, "job status of %s event", e.Kind)
	if e.Kind != history.KindIllegalJobID {
		require.Regexp(t, legalID, e.JobID)
	}
}

func TestProduceCommitsEveryKindWithMatchingRows(t *testing.T) {
	db, rec, cfg := producerRig(t, 42, "r1")
	p := newProducer(t, cfg)
	require.NoError(t, p.Produce(localtest.Context(t), 200))

	events := recorded(t, rec, 200)
	counts := checkAgainstRows(t, db, events)
	for _, kw := range []string{history.KindValid, history.KindUnknownType, history.KindMissingJob,
		history.KindQueueDenied, history.KindIllegalJobID, history.KindAlreadyQueued} {
		require.Positive(t, counts[kw], "kind %s drawn at least once in 200", kw)
	}
	require.Greater(t, counts[history.KindValid], counts[history.KindUnknownType], "valid weighs 5, unknown-type 1")
	seenIllegal := map[bool]bool{}
	for _, e := range events {
		if e.Kind == history.KindIllegalJobID {
			seenIllegal[allDigits.MatchString(e.JobID)] = true
		}
		require.False(t, e.Produced.IsZero())
	}
	require.Len(t, seenIllegal, 2, "both illegal id forms (all digits, with ':') are produced")
}

// sequence is what the seed decides: kinds, queues and ids without the run id
// (an all-digits id keeps only its event number, the rest hashes the run id).
func sequence(events []history.Event, runID string) []string {
	var out []string
	for _, e := range events {
		id := strings.ReplaceAll(e.JobID, runID, "RUN")
		if allDigits.MatchString(id) {
			id = "digits-" + id[len(id)-10:]
		}
		out = append(out, e.Kind+"|"+e.Queue+"|"+e.Type+"|"+id)
	}
	return out
}

func TestSameSeedSameSequence(t *testing.T) {
	db := referenceDB(t)
	runs := map[string]uint64{"a": 7, "b": 7, "c": 8}
	seqs := map[string][]string{}
	for runID, seed := range runs {
		rec := history.NewRecorder(history.Meta{})
		p := newProducer(t, producerConfig(db, seed, runID, rec))
		require.NoError(t, p.Produce(localtest.Context(t), 60))
		seqs[runID] = sequence(rec.Snapshot().Events, runID)
	}
	require.Equal(t, seqs["a"], seqs["b"], "same seed, same sequence")
	require.NotEqual(t, seqs["a"], seqs["c"], "another seed, another sequence")

	rec := history.NewRecorder(history.Meta{})
	p := newProducer(t, producerConfig(db, 7, "d", rec))
	require.NoError(t, p.ProduceBatch(localtest.Context(t), 60))
	require.Equal(t, seqs["a"], sequence(rec.Snapshot().Events, "d"), "ProduceBatch draws the same sequence")
}

func TestProduceRespectsRate(t *testing.T) {
	_, _, cfg := producerRig(t, 1, "rate")
	cfg.Rate = 50
	p := newProducer(t, cfg)
	start := time.Now()
	require.NoError(t, p.Produce(localtest.Context(t), 11))
	require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "11 events at 50/s take at least 10 intervals of 20 ms")
}

func TestProduceBatchRecordsDatabaseIDs(t *testing.T) {
	db, rec, cfg := producerRig(t, 3, "batch")
	p := newProducer(t, cfg)
	require.NoError(t, p.ProduceBatch(localtest.Context(t), 1234))
	events := recorded(t, rec, 1234)
	checkAgainstRows(t, db, events)
	ids := map[int64]bool{}
	for _, e := range events {
		require.False(t, ids[e.ID], "id %d recorded twice", e.ID)
		ids[e.ID] = true
	}
}

func TestProducerConfigErrors(t *testing.T) {
	db := referenceDB(t)
	rec := history.NewRecorder(history.Meta{})
	cases := map[string]struct {
		edit func(*workload.ProducerConfig)
		want string
	}{
		"no db":          {func(c *workload.ProducerConfig) { c.DB = nil }, "DB is nil"},
		"no queues":      {func(c *workload.ProducerConfig) { c.Queues = nil }, "no queues; name at least one"},
		"colon queue":    {func(c *workload.ProducerConfig) { c.Queues = []string{"a:b"} }, "without ':'"},
		"denied allowed": {func(c *workload.ProducerConfig) { c.DeniedQueue = "ai-bulk" }, "is in the allowlist"},
		"negative rate":  {func(c *workload.ProducerConfig) { c.Rate = -1 }, "Rate -1"},
		"empty mix":      {func(c *workload.ProducerConfig) { c.Mix = workload.Mix{} }, "every weight is 0"},
		"negative mix":   {func(c *workload.ProducerConfig) { c.Mix.MissingJob = -2 }, "weight of missing-job is -2"},
		"no rand":        {func(c *workload.ProducerConfig) { c.Rand = nil }, "Rand is nil"},
		"no recorder":    {func(c *workload.ProducerConfig) { c.Recorder = nil }, "Recorder is nil"},
		"bad run id":     {func(c *workload.ProducerConfig) { c.RunID = "a:b" }, "RunID \"a:b\""},
		"no run id":      {func(c *workload.ProducerConfig) { c.RunID = "" }, "RunID \"\""},
		"bad schema":     {func(c *workload.ProducerConfig) { c.Schema.Outbox.Status = "" }, "outbox.status"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := producerConfig(db, 1, "cfg", rec)
			tc.edit(&cfg)
			_, err := workload.NewProducer(cfg)
			require.ErrorContains(t, err, tc.want)
		})
	}
	p := newProducer(t, producerConfig(db, 1, "cfg", rec))
	require.ErrorContains(t, p.Produce(localtest.Context(t), -1), "n is -1")
}

// A dispatcher's claim can hold gap locks the producer's INSERT waits on; a
// lock wait timeout (or a deadlock) then rolls the producer's statement
// back, and the producer writes the event again instead of aborting the run.
func TestProduceWritesAgainAfterALockWaitTimeout(t *testing.T) {
	db := referenceDB(t)
	ctx := localtest.Context(t)
	var old int
	require.NoError(t, db.QueryRow("SELECT @@GLOBAL.innodb_lock_wait_timeout").Scan(&old))
	_, err := db.Exec("SET GLOBAL innodb_lock_wait_timeout = 1") // the private server's, for new sessions
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = db.Exec("SET GLOBAL innodb_lock_wait_timeout = ?", old) })
	db.SetMaxIdleConns(0) // every producer statement on a new session, with the 1 s timeout

	locker, err := db.Conn(ctx)
	require.NoError(t, err)
	defer locker.Close()
	_, err = locker.ExecContext(ctx, "BEGIN")
	require.NoError(t, err)
	ob := schema.Reference().Outbox
	_, err = locker.ExecContext(ctx, "SELECT "+ob.ID+" FROM "+ob.Table+" WHERE "+ob.ID+" >= 0 FOR UPDATE") // locks the gap an INSERT needs
	require.NoError(t, err)
	released := make(chan error, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond) // past one lock wait timeout
		_, err := locker.ExecContext(ctx, "COMMIT")
		released <- err
	}()

	rec := history.NewRecorder(history.Meta{})
	cfg := producerConfig(db, 7, "r1", rec)
	cfg.Mix = workload.Mix{Valid: 1}
	require.NoError(t, newProducer(t, cfg).Produce(ctx, 1), "a lock wait timeout is written again, not the run's end")
	require.NoError(t, <-released)
	recorded(t, rec, 1)
	require.Len(t, readOutbox(t, db), 1, "the event is committed once")
}
