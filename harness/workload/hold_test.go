package workload_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
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
	lastSent := lastSentAt(events)
	late := 0
	for _, e := range events {
		if e.Held.D() > 100*time.Millisecond {
			late++
			require.True(t, e.Committing.After(lastSent), "event %d held late commits after the last event", e.ID)
		}
	}
	require.Positive(t, late, "some first-half event was held late")
}

// A late hold ends early once the producer's own INSERT meets a lock wait
// timeout: a claim queued behind the held row can hold up the INSERT, and
// the held transaction would otherwise wait for the producer's last event,
// which waits on the INSERT. Here a transaction locks the gap above every
// row (as a claim scanning to the end does) for longer than the producer's
// lock wait timeout: the producer rides it out, every event is recorded,
// and the late holds open then commit before the last event is sent.
func TestLateHoldsEndWhenTheProducerWaitsOnALock(t *testing.T) {
	db, dsn := localtest.MySQLWith(t, schema.Reference().DDL...)
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["innodb_lock_wait_timeout"] = "1"
	short, err := sql.Open("mysql", cfg.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { _ = short.Close() })
	rec := history.NewRecorder(history.Meta{})
	pc := producerConfig(short, 3, "cut", rec)
	pc.Hold = workload.Hold{Share: 0.5, Min: 50 * time.Millisecond, Max: 60 * time.Millisecond, Late: 1}
	pc.Rate = 20
	blocked := make(chan error, 1)
	go func() { blocked <- lockTheTail(db, rec, 1500*time.Millisecond) }()
	require.NoError(t, newProducer(t, pc).Produce(context.Background(), 40))
	require.NoError(t, <-blocked)
	events := recorded(t, rec, 40)
	lastSent := lastSentAt(events)
	cut := 0
	for _, e := range events {
		if e.Held.D() > 100*time.Millisecond && e.Committing.Before(lastSent) {
			cut++
		}
	}
	require.Positive(t, cut, "a late hold open at the lock wait ended before the last event")
}

// lockTheTail waits for the producer's fifth recorded event, then holds
// the gap above every row for d.
func lockTheTail(db *sql.DB, rec *history.Recorder, d time.Duration) error {
	for rec.EventCount() < 5 {
		time.Sleep(10 * time.Millisecond)
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.Query("SELECT id FROM outbox_events WHERE id > 1000000 FOR UPDATE")
	if err != nil {
		return err
	}
	_ = rows.Close()
	time.Sleep(d)
	return tx.Commit()
}

// lastSentAt is when the last event committed at once (not held) was
// recorded: the producer had sent its last event by then.
func lastSentAt(events []history.Event) time.Time {
	var last time.Time
	for _, e := range events {
		if e.Committing.IsZero() && e.Produced.After(last) {
			last = e.Produced
		}
	}
	return last
}
