package observe_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// dedupeAdd is the shape of a BullMQ 5 add with opts.deduplication
// (docs/bullmq.md §3): the jobId's hash exists -> nothing; the deduplication
// key exists -> a "debounced" and a "deduplicated" entry naming the job that
// holds the key, nothing else; otherwise the key is set NX with its ttl and
// the job is added (hash, wait, "added", "waiting"). It returns what it did.
const dedupeAdd = `
if redis.call("EXISTS", KEYS[1]) == 1 then return "duplicated" end
local holder = redis.call("GET", KEYS[4])
if holder then
  redis.call("XADD", KEYS[3], "*", "event", "debounced", "jobId", holder, "debounceId", ARGV[1])
  redis.call("XADD", KEYS[3], "*", "event", "deduplicated", "jobId", holder, "deduplicationId", ARGV[1], "deduplicatedJobId", ARGV[1])
  return "deduplicated"
end
redis.call("SET", KEYS[4], ARGV[1], "PX", ARGV[3], "NX")
redis.call("HSET", KEYS[1], "name", "ai.job.enqueue", "data", ARGV[2], "opts", '{"de":{"id":"' .. ARGV[1] .. '"}}', "timestamp", "1")
redis.call("LPUSH", KEYS[2], ARGV[1])
redis.call("XADD", KEYS[3], "*", "event", "added", "jobId", ARGV[1], "name", "ai.job.enqueue")
redis.call("XADD", KEYS[3], "*", "event", "waiting", "jobId", ARGV[1])
return "added"`

// TestDeduplicatedAddIsNotACreation: a re-add that BullMQ's deduplication
// turns away (after the consumer removed the job, as removeOnComplete does)
// signals no creation and records no job note, and neither the
// deduplication key's writes nor its expiry are a job: the observer records
// the "deduplicated" entry as it is, and ScanFinal lists no de: key.
func TestDeduplicatedAddIsNotACreation(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	rec := history.NewRecorder(history.Meta{})
	o := startObserver(t, rdb, rec)
	sub := o.Subscribe(64)
	defer sub.Close()
	add := func(id string, ttl time.Duration) string {
		keys := []string{"bull:q:" + id, "bull:q:wait", "bull:q:events", "bull:q:de:" + id}
		out, err := rdb.Eval(ctx, dedupeAdd, keys, id, `{"jobId":"`+id+`"}`, ttl.Milliseconds()).Text()
		require.NoError(t, err)
		return out
	}

	require.Equal(t, "added", add("job-9", time.Minute))
	c := nextCreation(t, sub, "job-9")
	require.Equal(t, "q", c.Queue)
	if c.DataJobID == "" {
		c = nextCreation(t, sub, "job-9")
	}
	require.Equal(t, "job-9", c.DataJobID)
	require.Equal(t, "duplicated", add("job-9", time.Minute), "the hash still exists")
	// The stream reader may lag the keyspace: wait until it read the add,
	// or its "added" entry, read after the del below, is a new sight.
	streamRead := func(id string, n int) func() bool {
		return func() bool {
			got := 0
			for _, e := range rec.Snapshot().Stream {
				if e.JobID == id {
					got++
				}
			}
			return got >= n
		}
	}
	localtest.Eventually(t, "the add's stream entries read", streamRead("job-9", 2))

	// The consumer completes and removes the job; the key outlives it.
	require.NoError(t, rdb.LRem(ctx, "bull:q:wait", 0, "job-9").Err())
	require.NoError(t, rdb.Del(ctx, "bull:q:job-9").Err())
	localtest.Eventually(t, "the del note", func() bool { return len(keyEvents(rec.Snapshot(), "job-9")) == 2 })
	require.Equal(t, "deduplicated", add("job-9", time.Minute))
	quiet(t, sub, "job-9")

	// A key with a short ttl expires: no note, no signal; the next add is a
	// creation again.
	require.Equal(t, "added", add("job-short", 150*time.Millisecond))
	nextCreation(t, sub, "job-short")
	localtest.Eventually(t, "the short add's stream entries read", streamRead("job-short", 2))
	require.NoError(t, rdb.Del(ctx, "bull:q:job-short").Err())
	localtest.Eventually(t, "the key's expiry", func() bool { return rdb.Exists(ctx, "bull:q:de:job-short").Val() == 0 })
	require.Equal(t, "added", add("job-short", 150*time.Millisecond))
	nextCreation(t, sub, "job-short")
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	require.Equal(t, []string{"new", "del"}, keyEvents(run, "job-9"), "the key's SET, the turned-away add: no note")
	for _, k := range run.Keys {
		require.False(t, strings.HasPrefix(k.JobID, "de"), "the deduplication key is not a job: %+v", k)
	}
	var events []string
	var last history.StreamEntry
	for _, e := range run.Stream {
		if e.JobID == "job-9" {
			events = append(events, e.Event)
			last = e
		}
	}
	require.Equal(t, []string{"added", "waiting", "debounced", "deduplicated"}, events)
	require.Equal(t, map[string]string{"deduplicationId": "job-9", "deduplicatedJobId": "job-9"}, last.Extra)

	db := withSchema(t, schema.Reference())
	f, err := observe.ScanFinal(ctx, rdb, db, schema.Reference(), "bull", []string{"q"})
	require.NoError(t, err)
	require.Equal(t, []string{"job-short"}, jobIDs(f.Queues["q"].Jobs), "job hashes only, no de: key")
	require.Equal(t, int64(1), rdb.Exists(ctx, "bull:q:de:job-9").Val())
}

func jobIDs(jobs map[string]history.JobHash) []string {
	var out []string
	for id := range jobs {
		out = append(out, id)
	}
	return out
}
