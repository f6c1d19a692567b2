package workload_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// Held transactions commit after later ones: ids become visible out of
// order, every event is still recorded once with the id it got, and a held
// one says for how long and when it sent its COMMIT.
func TestHoldCommitsIDsOutOfOrder(t *testing.T) {
	db, rec, cfg := producerRig(t, 7, "hold")
	cfg.Hold = workload.Hold{Share: 0.3, Min: 150 * time.Millisecond, Max: 300 * time.Millisecond}
	cfg.Rate = 100
	started := time.Now()
	require.NoError(t, newProducer(t, cfg).Produce(context.Background(), 40))
	events := recorded(t, rec, 40)
	rows := readOutbox(t, db)
	require.Len(t, rows, 40)
	held, behind := 0, 0
	for _, e := range events {
		require.Equal(t, e.JobID, rows[e.ID].jobID, "event %d is recorded with the id the database gave", e.ID)
		if e.Held == 0 {
			require.True(t, e.Committing.IsZero())
			continue
		}
		held++
		require.GreaterOrEqual(t, e.Held.D(), 150*time.Millisecond)
		require.LessOrEqual(t, e.Held.D(), 300*time.Millisecond)
		require.True(t, e.Committing.After(started.Add(e.Held.D())), "the COMMIT is sent after the hold")
		for _, f := range events {
			if f.ID > e.ID && f.Produced.Before(e.Committing) {
				behind++ // a higher id committed before this one's COMMIT was sent
				break
			}
		}
	}
	require.Positive(t, held)
	require.Positive(t, behind, "some held event committed behind a higher id")
}

func TestHoldRefusesNonsense(t *testing.T) {
	for _, h := range []workload.Hold{
		{Share: 1.5, Min: time.Millisecond, Max: time.Second},
		{Share: 0.1},
		{Share: 0.1, Min: time.Second, Max: time.Millisecond},
		{Min: time.Second, Max: time.Second},
		{Share: 0.1, Min: time.Second, Max: time.Second, Late: 2},
		{Late: 0.5},
	} {
		require.Error(t, h.Validate(), "%+v", h)
	}
	require.NoError(t, workload.Hold{}.Validate())
}

// A late hold keeps a first-half event's transaction open until the last
// event was sent: it commits behind every event of the run.
func TestLateHoldsCommitAfterTheLastEvent(t *testing.T) {
	_, rec, cfg := producerRig(t, 3, "late")
	cfg.Hold = workload.Hold{Share: 0.5, Min: 50 * time.Millisecond, Max: 60 * time.Millisecond, Late: 1}
	cfg.Rate = 200
	require.NoError(t, newProducer(t, cfg).Produce(context.Background(), 40))
	events := recorded(t, rec, 40)
	var lastSent time.Time
	for _, e := range events {
		if e.Committing.IsZero() && e.Produced.After(lastSent) {
			lastSent = e.Produced
		}
	}
	late := 0
	for _, e := range events {
		if e.Held.D() > 100*time.Millisecond {
			late++
			require.True(t, e.Committing.After(lastSent), "event %d held late commits after the last event", e.ID)
		}
	}
	require.Positive(t, late, "some first-half event was held late")
}
