package nemesis

import (
	"context"
	"database/sql"
	"errors"
	"math/rand"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// pgRig is a nemesis of a PostgreSQL run with one slot: its database link
// leads to a fresh database on the shared private PostgreSQL; its Redis
// link leads nowhere (no test here uses it).
type pgRig struct {
	n      *Nemesis
	rec    *history.Recorder
	direct *sql.DB
	via    *sql.DB // through the slot's postgres link
}

func newPGRig(t *testing.T) *pgRig {
	t.Helper()
	direct, dbURL := localtest.Postgres(t)
	_, err := direct.Exec("CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)")
	require.NoError(t, err)
	_, err = direct.Exec("INSERT INTO t VALUES (1, 0)")
	require.NoError(t, err)
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	proxy := faultproxy.NewServer(rand.New(rand.NewSource(1)))
	t.Cleanup(func() { _ = proxy.Close() })
	pg, err := proxy.Link("postgres/d1", u.Host)
	require.NoError(t, err)
	rd, err := proxy.Link("redis/d1", "127.0.0.1:1")
	require.NoError(t, err)
	rec := history.NewRecorder(history.Meta{Scenario: t.Name()})
	sup := supervisor.New(idleAdapter{}, rec, filepath.Join(t.TempDir(), "logs"))
	t.Cleanup(func() { require.NoError(t, sup.Close()) })
	n, err := New(Config{Supervisor: sup, Recorder: rec, Seed: 1, Store: faultproxy.StorePostgres,
		Links: map[string]*faultproxy.Proxy{"postgres/d1": pg, "redis/d1": rd},
		Slots: []string{"d1"}, SlotEnv: map[string]map[string]string{"d1": {}}})
	require.NoError(t, err)
	u.Host = pg.Addr()
	via, err := sql.Open("pgx", u.String())
	require.NoError(t, err)
	via.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = via.Close() })
	return &pgRig{n: n, rec: rec, direct: direct, via: via}
}

// during runs f once the link has a fault, while Network holds it.
func (r *pgRig) during(t *testing.T, f func()) chan struct{} {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		deadline := time.Now().Add(10 * time.Second)
		for len(r.n.links["postgres/d1"].Active()) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		f()
	}()
	return done
}

// A scenario's MySQL lost COMMIT reply, on a PostgreSQL run, is bound to
// the store: the record says lost-reply-postgres-commit and counts it.
func TestNetworkBindsDatabaseFaultsToThePostgresStore(t *testing.T) {
	ctx := localtest.Context(t)
	r := newPGRig(t)
	require.Equal(t, "postgres", r.n.Store())
	require.NoError(t, r.via.PingContext(ctx))
	var commitErr error
	done := r.during(t, func() {
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		tx, err := r.via.BeginTx(tctx, nil)
		if err == nil {
			_, err = tx.ExecContext(tctx, "UPDATE t SET v = 1 WHERE id = 1")
		}
		if err == nil {
			err = tx.Commit()
		}
		commitErr = err
	})
	require.NoError(t, r.n.Network(ctx, "postgres", "", faultproxy.LostReplyMySQLCommit{}, 2*time.Second))
	<-done
	require.Error(t, commitErr, "the COMMIT's reply was lost")
	var v int
	require.NoError(t, r.direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v))
	require.Equal(t, 1, v, "the COMMIT ran")

	var updateErr error
	done = r.during(t, func() {
		for range 3 {
			_, err := r.via.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				updateErr = err
			}
		}
	})
	require.NoError(t, r.n.Network(ctx, "postgres", "", faultproxy.SQLError{}, 2*time.Second))
	<-done
	require.NoError(t, updateErr, "every locking statement is answered with an error response")

	faults := r.rec.Snapshot().Faults
	require.Len(t, faults, 2)
	require.Equal(t, "lost-reply-postgres-commit", faults[0].Kind)
	require.Equal(t, "postgres", faults[0].Target)
	require.Equal(t, map[string]string{"for": "2s", "fired": "1"}, faults[0].Params)
	require.Equal(t, "sql-error", faults[1].Kind)
	require.Equal(t, map[string]string{"for": "2s", "store": "postgres", "refused": "3", "answered": "3"}, faults[1].Params)

	// A schedule's "mysql" is the run's store, whichever it is.
	require.NoError(t, r.n.Network(ctx, "mysql", "", faultproxy.Latency{Latency: time.Millisecond}, time.Millisecond))
	require.Equal(t, "postgres", r.rec.Snapshot().Faults[2].Target)
	err := r.n.Network(ctx, "kafka", "", faultproxy.Latency{Latency: time.Millisecond}, time.Millisecond)
	require.ErrorContains(t, err, `dependency "kafka"`)
}

// The traps find what an instance holds on a PostgreSQL outbox with no jobs
// table whose message id is a uuid column: the creation's ids (BullMQ's
// own, the payload's jobId) are compared with it as text, so an id that is
// no uuid matches nothing instead of failing the statement.
func TestHeldEventsOnAPostgresUUIDMessageID(t *testing.T) {
	direct, _ := localtest.Postgres(t)
	_, err := direct.Exec(`CREATE TABLE relay (id bigserial PRIMARY KEY, message_id uuid NOT NULL, payload jsonb NOT NULL,
		status text NOT NULL DEFAULT 'new', locked_by text NULL)`)
	require.NoError(t, err)
	const msg = "651873b8-7b4a-4747-b00b-be504ca9bac9"
	_, err = direct.Exec(`INSERT INTO relay (message_id, payload, status, locked_by) VALUES
		($1, '{"jobId":"j-1"}', 'leased', 'd1'), (gen_random_uuid(), '{"jobId":"j-2"}', 'leased', 'd2')`, msg)
	require.NoError(t, err)
	m := schema.Mapping{
		Outbox: schema.Outbox{Table: "relay", ID: "id", MessageID: "message_id", Payload: "payload", Status: "status", LockedBy: "locked_by"},
		OutboxStatus: map[string]string{"new": history.StatusPending, "leased": history.StatusProcessing,
			"done": history.StatusPublished, "dead": history.StatusFailed},
	}
	n := &Nemesis{db: direct, schema: m, dialect: model.Postgres}
	ctx := localtest.Context(t)
	for _, jobs := range [][]string{{msg, "j-1"}, {"17", "j-1"}, {"j-1"}} {
		held := n.heldEvents(ctx, "d1", jobs)
		require.True(t, held.ok, "%v", jobs)
		require.Equal(t, []string{"1"}, held.events, "%v: %s", jobs, held.unknown)
	}
	held := n.heldEvents(ctx, "d1", []string{"j-2", "42"})
	require.False(t, held.ok, "d2's row is not d1's")
}
