package workload_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// With Aggregates, events go round-robin over the aggregates, the payload
// names the aggregate beside the jobId, the history records it, and every
// event of an aggregate is on one queue.
func TestProduceSpreadsEventsOverAggregates(t *testing.T) {
	db, rec, cfg := producerRig(t, 5, "agg")
	cfg.Mix, cfg.Aggregates = workload.Mix{Valid: 1}, 4
	p := newProducer(t, cfg)
	require.NoError(t, p.Produce(localtest.Context(t), 12))

	rows := readOutbox(t, db)
	events := recorded(t, rec, 12)
	queueOf := map[string]string{}
	perAggregate := map[string]int{}
	for i, e := range events {
		var payload struct{ JobID, Aggregate string }
		require.NoError(t, json.Unmarshal([]byte(rows[e.ID].payload), &payload))
		require.Equal(t, e.JobID, payload.JobID)
		require.Equal(t, e.Aggregate, payload.Aggregate, "the history records the payload's aggregate")
		require.Equal(t, events[i%4].Aggregate, e.Aggregate, "round-robin over 4 aggregates")
		if q, ok := queueOf[e.Aggregate]; ok {
			require.Equal(t, q, e.Queue, "one queue per aggregate")
		}
		queueOf[e.Aggregate] = e.Queue
		perAggregate[e.Aggregate]++
	}
	require.Len(t, perAggregate, 4)
	for agg, n := range perAggregate {
		require.Equal(t, 3, n, agg)
	}

	cfg.Aggregates = -1
	_, err := workload.NewProducer(cfg)
	require.ErrorContains(t, err, "Aggregates -1")
}

// Without Aggregates the payload is the contract's, {"jobId": ...} only.
func TestProduceWithoutAggregatesKeepsTheContractPayload(t *testing.T) {
	db, rec, cfg := producerRig(t, 5, "noagg")
	cfg.Mix = workload.Mix{Valid: 1}
	require.NoError(t, newProducer(t, cfg).Produce(localtest.Context(t), 3))
	rows := readOutbox(t, db)
	for _, e := range rec.Snapshot().Events {
		require.Empty(t, e.Aggregate)
		require.JSONEq(t, `{"jobId":"`+e.JobID+`"}`, rows[e.ID].payload)
	}
}
