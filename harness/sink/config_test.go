package sink

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

func TestValidate(t *testing.T) {
	ok := Config{Kind: history.SinkList, Keys: []string{"a", "b:c"}}
	require.NoError(t, ok.Validate())
	require.Equal(t, PushLeft, ok.Push, "LPUSH is the default")
	require.Equal(t, "RIGHT", ok.Oldest())
	right := Config{Kind: history.SinkList, Keys: []string{"a"}, Push: PushRight}
	require.NoError(t, right.Validate())
	require.Equal(t, "LEFT", right.Oldest())
	stream := Config{Kind: history.SinkStream, Keys: []string{"s"}, MessageID: "id", Payload: "payload"}
	require.NoError(t, stream.Validate())

	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Keys: []string{"a"}}, "this describes redis-stream and redis-list sinks only"},
		{Config{Kind: "kafka", Keys: []string{"a"}}, `sink kind "kafka": use redis-stream or redis-list`},
		{Config{Kind: history.SinkStream}, "no keys; name at least one stream"},
		{Config{Kind: history.SinkList, Keys: []string{""}}, "use a non-empty name"},
		{Config{Kind: history.SinkList, Keys: []string{"a b"}}, "without whitespace"},
		{Config{Kind: history.SinkList, Keys: []string{"oc:archive:x"}}, "the harness's own"},
		{Config{Kind: history.SinkStream, Keys: []string{"a", "a"}}, "listed twice"},
		{Config{Kind: history.SinkStream, Keys: []string{"a"}, MessageID: " id"}, "surrounding whitespace"},
		{Config{Kind: history.SinkStream, Keys: []string{"a"}, Push: PushLeft}, "push applies to redis-list sinks only"},
		{Config{Kind: history.SinkList, Keys: []string{"a"}, Push: "lpush"}, "use left (the dispatcher LPUSHes) or right"},
	} {
		err := c.cfg.Validate()
		require.Error(t, err, "%+v", c.cfg)
		require.Contains(t, err.Error(), c.want)
	}
}
