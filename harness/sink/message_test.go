package sink

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

func TestFindJobID(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"top level", `{"jobId":"j-1"}`, "j-1"},
		{"a number as written", `{"jobId":12345678901234567890}`, "12345678901234567890"},
		{"nested", `{"event":{"data":{"jobId":"j-2"}}}`, "j-2"},
		{"in an array", `[{"x":1},{"jobId":"j-3"}]`, "j-3"},
		{"payload as JSON text", `{"payload":"{\"jobId\":\"j-4\"}"}`, "j-4"},
		{"the shallowest wins", `{"a":{"jobId":"deep"},"b":{"c":{"jobId":"deeper"}},"jobId":"top"}`, "top"},
		{"sorted keys at one depth", `{"b":{"jobId":"from-b"},"a":{"jobId":"from-a"}}`, "from-a"},
		{"null is none", `{"jobId":null,"x":{"jobId":"j-5"}}`, "j-5"},
		{"an object is none", `{"jobId":{"v":1}}`, ""},
		{"not JSON", `j-6`, ""},
		{"broken JSON", `{"jobId":"j-7"`, ""},
		{"trailing garbage", `{"jobId":"j-8"} x`, ""},
		{"none", `{"id":"x"}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) { require.Equal(t, c.want, FindJobID(c.text)) })
	}
}

func TestFindJobIDIsBounded(t *testing.T) {
	nest := func(levels int) string {
		return strings.Repeat(`{"a":`, levels) + `{"jobId":"j"}` + strings.Repeat("}", levels)
	}
	require.Equal(t, "j", FindJobID(nest(MaxDepth-1)))
	require.Empty(t, FindJobID(nest(MaxDepth)), "deeper than MaxDepth")
}

func TestEntry(t *testing.T) {
	values := map[string]any{"message_id": "m-1", "payload": `{"jobId":"j-1"}`, "other": `{"jobId":"elsewhere"}`}
	c := Config{Kind: history.SinkStream, MessageID: "message_id", Payload: "payload"}
	require.Equal(t, Message{ID: "m-1", DataJobID: "j-1"}, c.Entry(values))

	c = Config{Kind: history.SinkStream, MessageID: "absent"}
	require.Equal(t, Message{DataJobID: "elsewhere"}, c.Entry(values),
		"no payload field: every field, in sorted order (other before payload); no such id field: no id")

	require.Equal(t, Message{DataJobID: "j-2"}, Config{}.Entry(map[string]any{"jobId": "j-2", "payload": `{"jobId":"j-9"}`}),
		"a field named jobId is the entry's own")
	require.Equal(t, Message{ID: "m"}, Config{MessageID: "id", Payload: "p"}.Entry(map[string]any{"id": "m", "p": "not json"}))
	require.Equal(t, Message{}, Config{Payload: "p"}.Entry(map[string]any{}))
}

func TestElement(t *testing.T) {
	c := Config{Kind: history.SinkList, MessageID: "id", Payload: "body"}
	require.Equal(t, Message{ID: "m-1", DataJobID: "j-1"}, c.Element(`{"id":"m-1","body":{"jobId":"j-1"},"jobId":"not-the-payload"}`))
	require.Equal(t, Message{ID: "7", DataJobID: "j-2"}, c.Element(`{"id":7,"body":"{\"jobId\":\"j-2\"}"}`))
	require.Equal(t, Message{ID: "m-3"}, c.Element(`{"id":"m-3"}`), "no payload key")

	whole := Config{Kind: history.SinkList, MessageID: "id"}
	require.Equal(t, Message{ID: "m-4", DataJobID: "j-4"}, whole.Element(`{"id":"m-4","data":{"jobId":"j-4"}}`))
	require.Equal(t, Message{DataJobID: "j-5"}, whole.Element(`[{"jobId":"j-5"}]`), "an array has no message id key")
	require.Equal(t, Message{}, whole.Element("plain text"))
}
