package manifest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/sink"
)

func TestLoadReadsEachOutboxShape(t *testing.T) {
	a, err := Load("testdata/good_timestamps.yaml")
	require.NoError(t, err)
	m := a.Schema()
	require.Equal(t, schema.KeyText, m.Outbox.IDType, "a CHAR(36) key is a uuid the producer writes")
	require.Equal(t, "processed_at IS NOT NULL", m.States.Published)
	require.Equal(t, map[string]string{"kind": "ai.job.enqueue"}, m.Outbox.Constants)
	require.False(t, m.HasJobs())
	require.Equal(t, history.SinkStream, a.SinkKind())
	require.Equal(t, sink.Config{Kind: history.SinkStream, Keys: []string{"orders"}, MessageID: "message_id", Payload: "payload"}, a.SinkConfig())
	require.Equal(t, history.DeliveryAtLeastOnce, a.Delivery())
	caps := model.Caps(m, a.SinkKind(), a.Delivery())
	require.Equal(t, history.FormPredicate, caps.Form)
	require.Equal(t, []string{history.LackBackoff, history.LackJobs, history.LackPoison}, caps.Lacks)

	a, err = Load("testdata/good_cursor.yaml")
	require.NoError(t, err)
	require.Equal(t, &schema.Cursor{Table: "offsets", Column: "offset_acked", GroupColumn: "consumer_group", Group: "relay"}, a.Schema().States.Cursor)
	require.Equal(t, history.SinkBullMQ, a.SinkKind(), "the default sink")
	require.Equal(t, history.FormCursor, model.Caps(a.Schema(), a.SinkKind(), a.Delivery()).Form)

	a, err = Load("testdata/good_deletion.yaml")
	require.NoError(t, err)
	require.Equal(t, schema.DeletedPublished, a.Schema().States.Deleted)
	require.Equal(t, history.DeliveryExactlyOnce, a.Delivery())
	caps = model.Caps(a.Schema(), a.SinkKind(), a.Delivery())
	require.True(t, caps.Has(history.LackLeases) && caps.Has(history.LackFailed), "a lease column and a dead-letter table")
	require.False(t, caps.Has(history.LackAttempts))
}

func TestProducerCommandIsOptional(t *testing.T) {
	a, err := Load("testdata/good_cursor.yaml")
	require.NoError(t, err)
	_, ok, err := a.ProducerSpec(nil)
	require.NoError(t, err)
	require.False(t, ok, "no producer: the harness's own writes the events")
}
