package bullmq_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

func TestValidateJobID(t *testing.T) {
	for _, id := range []string{"j-1", "0a", "007x", "a-1", "-", "1.5", "ai_job 42", "é", strings.Repeat("x", bullmq.MaxJobIDLen)} {
		require.NoError(t, bullmq.ValidateJobID(id), "legal id %q", id)
	}
	illegal := map[string]string{
		"":    "empty",
		"123": "integer",
		"007": "integer",
		"-5":  "integer",
		"a:b": "':'",
		":":   "':'",
		strings.Repeat("x", bullmq.MaxJobIDLen+1): "bytes long",
		"a\nb": "control",
		"\xff": "UTF-8",
	}
	for id, reason := range illegal {
		err := bullmq.ValidateJobID(id)
		require.ErrorIs(t, err, bullmq.ErrIllegalJobID, "id %q", id)
		require.Contains(t, err.Error(), reason, "id %q", id)
	}
}

func TestOutcomeString(t *testing.T) {
	require.Equal(t, "added", bullmq.Added.String())
	require.Equal(t, "duplicate", bullmq.Duplicate.String())
	require.Equal(t, "deduped", bullmq.Deduped.String())
	require.Equal(t, "Outcome(0)", bullmq.Outcome(0).String())
}

func TestNewProducerValidatesOptions(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never contacted
	t.Cleanup(func() { _ = rdb.Close() })

	_, err := bullmq.NewProducer(nil, bullmq.Options{})
	require.ErrorContains(t, err, "redis client is nil")
	_, err = bullmq.NewProducer(rdb, bullmq.Options{DedupeHorizon: -time.Second})
	require.ErrorContains(t, err, "DedupeHorizon -1s must be at least 1ms")
	_, err = bullmq.NewProducer(rdb, bullmq.Options{DedupeHorizon: time.Microsecond})
	require.ErrorContains(t, err, "DedupeHorizon")
	_, err = bullmq.NewProducer(rdb, bullmq.Options{Prefix: "bad prefix"})
	require.ErrorContains(t, err, "Prefix")

	p, err := bullmq.NewProducer(rdb, bullmq.Options{})
	require.NoError(t, err)
	require.Equal(t, "bull:ai-default:ocdedupe:j-1", p.DedupeKey("ai-default", "j-1"))
}

func TestInvalidJobsAreRefusedWithoutARoundTrip(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	bad := []struct {
		job  bullmq.Job
		want error
	}{
		{job("q", "123"), bullmq.ErrIllegalJobID},
		{job("q", "a:b"), bullmq.ErrIllegalJobID},
		{job("q", ""), bullmq.ErrIllegalJobID},
		{bullmq.Job{Queue: "q", ID: "j-1", Name: "ai-job", Data: `{"jobId":`}, bullmq.ErrInvalidJob},
		{bullmq.Job{Queue: "", ID: "j-1", Name: "ai-job", Data: `{}`}, bullmq.ErrInvalidJob},
		{bullmq.Job{Queue: "a:b", ID: "j-1", Name: "ai-job", Data: `{}`}, bullmq.ErrInvalidJob},
		{bullmq.Job{Queue: "q", ID: "j-1", Name: "", Data: `{}`}, bullmq.ErrInvalidJob},
	}
	jobs := make([]bullmq.Job, len(bad))
	for i, b := range bad {
		jobs[i] = b.job
	}
	e.calls.reset()
	res := e.add(jobs...)
	for i, b := range bad {
		require.Equal(t, b.job, res[i].Job)
		require.ErrorIs(t, res[i].Err, b.want, "job %d", i)
		require.Zero(t, res[i].Outcome)
	}
	require.Contains(t, res[0].Err.Error(), `"123"`, "the error names the id")
	require.Zero(t, e.calls.single.Load()+e.calls.pipelines.Load(), "nothing may be sent for invalid jobs")
	require.Empty(t, e.keys())
}

func TestScriptRefusesIllegalIDsItself(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	for _, id := range []string{"", "42", "-42", "a:b"} {
		keys := []string{"bull:q:id", "bull:q:meta", "bull:q:" + id, "bull:q:ocdedupe:" + id,
			"bull:q:active", "bull:q:wait", "bull:q:paused", "bull:q:marker", "bull:q:events"}
		err := e.rdb.Eval(ctxFor(t), bullmq.AddScript, keys, id, "ai-job", "{}", "{}", "1000").Err()
		require.ErrorContains(t, err, "ILLEGALJOBID", "id %q", id)
	}
	keys := []string{"bull:q:id", "bull:q:meta", "bull:q:j", "bull:q:ocdedupe:j",
		"bull:q:active", "bull:q:wait", "bull:q:paused", "bull:q:marker", "bull:q:events"}
	err := e.rdb.Eval(ctxFor(t), bullmq.AddScript, keys, "j", "ai-job", "{}", "{}", "0").Err()
	require.ErrorContains(t, err, "dedupe horizon")
	require.Empty(t, e.keys(), "a refused add writes nothing")
}
