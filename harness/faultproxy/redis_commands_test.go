package faultproxy

import (
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// commandSink collects what a server's command log records.
type commandSink struct {
	mu   sync.Mutex
	cmds []Command
}

func (s *commandSink) record(c Command) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cmds = append(s.cmds, c)
}

// wait returns the records once there are n of them.
func (s *commandSink) wait(t *testing.T, n int) []Command {
	t.Helper()
	var out []Command
	eventually(t, "command records", func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		out = append([]Command(nil), s.cmds...)
		if len(out) < n {
			return errNotYet
		}
		return nil
	})
	return out
}

type notYet struct{}

func (notYet) Error() string { return "not yet" }

var errNotYet error = notYet{}

// loggedLink is redisLink with the server's command log on, needle "j-run-".
func loggedLink(t *testing.T, readTimeout time.Duration) (*Proxy, *redis.Client, *redis.Client, *commandSink) {
	t.Helper()
	r := localtest.Redis(t)
	s := newServer(t, 1)
	sink := &commandSink{}
	require.NoError(t, s.RecordCommands(CommandLog{Needle: "j-run-", Record: sink.record}))
	p, err := s.Link("redis/d1", r.Addr())
	require.NoError(t, err)
	return p, redisClient(t, r.Addr(), 10*time.Second), redisClient(t, p.Addr(), readTimeout), sink
}

func TestCommandLogRecordsJobCommandsWithTheirReplies(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c, sink := loggedLink(t, 5*time.Second)
	require.NoError(t, queueAdd.Load(ctx, direct).Err())

	require.NoError(t, queueAdd.EvalSha(ctx, c, addKeys("ai-default", "j-run-1"), `{"jobId":"j-run-1"}`, "j-run-1").Err())
	require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "outbox", Values: []string{"payload", `{"jobId":"j-run-2"}`}}).Err())
	require.NoError(t, c.LPush(ctx, "jobs", `{"jobId":"j-run-3","other":"j-run-30"}`).Err())
	require.NoError(t, c.Set(ctx, "lock:dispatch", "me", 0).Err(), "a write naming no job is not recorded")
	require.ErrorIs(t, c.Get(ctx, "j-run-4").Err(), redis.Nil, "a read naming a job is recorded")
	require.NoError(t, c.Ping(ctx).Err(), "a read naming no job is not")

	added(t, p, QueueError{Queue: "ai-bulk"})
	require.Error(t, queueAdd.EvalSha(ctx, c, addKeys("ai-bulk", "j-run-5"), "{}", "j-run-5").Err())
	require.Error(t, c.Set(ctx, "bull:ai-bulk:lock", "me", 0).Err(), "a refused write naming no job")

	got := sink.wait(t, 6)
	require.Len(t, got, 6)
	want := []struct {
		name, outcome string
		jobs          []string
	}{
		{"EVALSHA", OutcomeAnswered, []string{"j-run-1"}},
		{"XADD", OutcomeAnswered, []string{"j-run-2"}},
		{"LPUSH", OutcomeAnswered, []string{"j-run-3", "j-run-30"}},
		{"GET", OutcomeAnswered, []string{"j-run-4"}},
		{"EVALSHA", OutcomeError, []string{"j-run-5"}},
		{"SET", OutcomeError, nil},
	}
	for i, w := range want {
		require.Equal(t, w.name, got[i].Name, "record %d", i)
		require.Equal(t, w.outcome, got[i].Outcome, "record %d", i)
		require.Equal(t, w.jobs, got[i].Jobs, "record %d", i)
		require.Equal(t, "redis/d1", got[i].Link)
		require.Equal(t, w.name != "GET", got[i].Write, "record %d", i)
		require.False(t, got[i].Replied.Before(got[i].Sent), "record %d replied before it was sent", i)
	}
	require.Contains(t, got[4].Reply, "refused by a fault")
}

func TestCommandLogRecordsADroppedReply(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c, sink := loggedLink(t, time.Second)
	require.NoError(t, addScript.Load(ctx, direct).Err())
	require.NoError(t, c.Ping(ctx).Err())
	added(t, p, LostReplyRedisAdd{})

	err := addScript.EvalSha(ctx, c, []string{"bull:q:j-run-7"}, "v").Err()
	require.True(t, isTimeout(err), "want a timeout, got %v", err)
	got := sink.wait(t, 1)
	require.Equal(t, "EVALSHA", got[0].Name)
	require.Equal(t, []string{"j-run-7"}, got[0].Jobs)
	require.Equal(t, OutcomeDropped, got[0].Outcome)
}

func TestCommandLogRecordsANOSCRIPTThenTheDroppedEVAL(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c, sink := loggedLink(t, time.Second)
	require.NoError(t, direct.ScriptFlush(ctx).Err())
	added(t, p, LostReplyRedisAdd{})

	err := addScript.Run(ctx, c, []string{"bull:q:j-run-8"}, "v").Err()
	require.True(t, isTimeout(err), "want a timeout on the EVAL, got %v", err)
	got := sink.wait(t, 2)
	require.Equal(t, "EVALSHA", got[0].Name)
	require.Equal(t, OutcomeError, got[0].Outcome, "NOSCRIPT came through")
	require.Contains(t, got[0].Reply, "NOSCRIPT")
	require.Equal(t, "EVAL", got[1].Name)
	require.Equal(t, OutcomeDropped, got[1].Outcome)
}

func TestCommandLogRecordsATimedOutCommand(t *testing.T) {
	ctx := localtest.Context(t)
	p, _, c, sink := loggedLink(t, 300*time.Millisecond)
	require.NoError(t, c.Ping(ctx).Err())
	added(t, p, Blackhole{Direction: Upstream})

	err := c.LPush(ctx, "jobs", `{"jobId":"j-run-9"}`).Err()
	require.True(t, isTimeout(err), "want a timeout, got %v", err)
	got := sink.wait(t, 1)
	require.Equal(t, "LPUSH", got[0].Name)
	require.Equal(t, []string{"j-run-9"}, got[0].Jobs)
	require.Equal(t, OutcomeClosed, got[0].Outcome, "go-redis closes a connection whose read timed out")
}

func TestCommandLogSettlesATransactionByItsEXEC(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c, sink := loggedLink(t, 5*time.Second)
	require.NoError(t, addScript.Load(ctx, direct).Err())

	_, err := c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Set(ctx, "tx-other", "1", 0)
		addScript.EvalSha(ctx, pipe, []string{"bull:q:j-run-10"}, "v")
		return nil
	})
	require.NoError(t, err)
	added(t, p, QueueError{Queue: "q"})
	_, err = c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		addScript.EvalSha(ctx, pipe, []string{"bull:q:j-run-11"}, "v")
		return nil
	})
	require.Error(t, err)

	got := sink.wait(t, 2)
	require.Equal(t, []string{"j-run-10"}, got[0].Jobs)
	require.Equal(t, OutcomeAnswered, got[0].Outcome)
	require.Equal(t, []string{"j-run-11"}, got[1].Jobs)
	require.Equal(t, OutcomeError, got[1].Outcome, "rejected while queued")
}

func TestCommandLogRecordsNothingBeforeItIsOn(t *testing.T) {
	ctx := localtest.Context(t)
	r := localtest.Redis(t)
	s := newServer(t, 1)
	p, err := s.Link("redis/d1", r.Addr())
	require.NoError(t, err)
	c := redisClient(t, p.Addr(), 5*time.Second)
	require.NoError(t, c.LPush(ctx, "jobs", "j-run-1").Err())

	sink := &commandSink{}
	require.Error(t, s.RecordCommands(CommandLog{Record: sink.record}), "a needle is required")
	require.NoError(t, s.RecordCommands(CommandLog{Needle: "j-run-", Record: sink.record}))
	require.NoError(t, c.LPush(ctx, "jobs", "j-run-2").Err(), "a connection open before the log was on")
	got := sink.wait(t, 1)
	require.Len(t, got, 1)
	require.Equal(t, []string{"j-run-2"}, got[0].Jobs)
	require.Zero(t, s.CommandsLost())
}

func TestJobIDs(t *testing.T) {
	require.Equal(t, []string{"j-r-1", "j-r-12"}, jobIDs([]byte(`x j-r-1 j-r-12 j-r- j-r-1`), []byte("j-r-")))
	require.Nil(t, jobIDs([]byte("j-r-1"), nil))
}
