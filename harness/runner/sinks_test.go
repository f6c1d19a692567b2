package runner

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/sink"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// idleAdapter is an adapter whose instances only sleep.
type idleAdapter struct{}

func (idleAdapter) Name() string                          { return "idle" }
func (idleAdapter) Prepare(context.Context, string) error { return nil }
func (idleAdapter) Schema() schema.Mapping                { return schema.Reference() }
func (idleAdapter) Capabilities() supervisor.Capabilities { return supervisor.Capabilities{} }
func (idleAdapter) Spec(inst supervisor.Instance) (supervisor.Spec, error) {
	return supervisor.Spec{Path: "sleep", Args: []string{"120"}, Env: supervisor.HarnessEnviron(inst.Env)}, nil
}

// listSinkAdapter is the idle adapter with a stream or list sink.
type listSinkAdapter struct {
	idleAdapter
	kind string // the model's
	cfg  sink.Config
}

func (a listSinkAdapter) SinkConfig() sink.Config { return a.cfg }
func (a listSinkAdapter) SinkKind() string        { return a.kind }
func (a listSinkAdapter) Delivery() string        { return history.DeliveryAtLeastOnce }

func TestSinkOf(t *testing.T) {
	_, ok, err := sinkOf(idleAdapter{}, []string{"q"})
	require.NoError(t, err)
	require.False(t, ok, "BullMQ")

	list := sink.Config{Kind: history.SinkList, MessageID: "id"}
	cfg, ok, err := sinkOf(listSinkAdapter{kind: history.SinkList, cfg: list}, []string{"a", "b"})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"a", "b"}, cfg.Keys, "the run's queues")
	require.Equal(t, sink.PushLeft, cfg.Push, "validated, with defaults")

	_, _, err = sinkOf(listSinkAdapter{kind: history.SinkStream, cfg: list}, []string{"a"})
	require.ErrorContains(t, err, `its model's sink is "redis-stream", its sink configuration "redis-list"`)
	_, _, err = sinkOf(listSinkAdapter{kind: history.SinkList, cfg: sink.Config{Kind: history.SinkList, Keys: []string{"a a"}}}, nil)
	require.ErrorContains(t, err, "adapter idle: sink redis-list key")
}

func TestSinkRunFollowsAListThroughARun(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	a := listSinkAdapter{kind: history.SinkList, cfg: sink.Config{Kind: history.SinkList, MessageID: "id"}}
	s, err := startSink(ctx, a, []string{"orders"}, rdb, rec)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.stop()) }()
	sub := s.Subscribe(4)
	defer sub.Close()
	c, err := s.newConsumer(nil, schema.Mapping{}, model.MySQL, 2, false)
	require.NoError(t, err)
	bg, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		require.NoError(t, c.Run(bg))
	}()

	require.NoError(t, rdb.LPush(ctx, "orders", `{"id":"m-1"}`, `{"id":"m-2"}`).Err())
	require.Equal(t, "m-1", (<-sub.C).JobID)
	localtest.Eventually(t, "moved and taken", func() bool { return s.idle(ctx) && len(rec.Snapshot().Takes) == 2 })
	cancel()
	wg.Wait()
	require.NoError(t, s.stop())
	require.NoError(t, s.stop(), "stopping twice is harmless (cleanup after finish)")

	require.NoError(t, rdb.LPush(ctx, "orders", `{"id":"m-3"}`).Err())
	require.False(t, s.idle(ctx), "an element left in the list")
	final, err := s.finalAppends(ctx)
	require.NoError(t, err)
	require.Len(t, final, 1)
	require.Equal(t, "m-3", final[0].MessageID)
	require.Equal(t, "3", final[0].ID)
	require.Len(t, rec.Snapshot().Appends, 2)

	none, err := startSink(ctx, idleAdapter{}, []string{"q"}, rdb, rec)
	require.NoError(t, err)
	require.Nil(t, none, "nothing to start for BullMQ")
}
