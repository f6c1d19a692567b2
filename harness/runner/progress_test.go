package runner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// shapedAdapter is the idle adapter with an outbox of another shape.
type shapedAdapter struct {
	idleAdapter
	m schema.Mapping
}

func (a shapedAdapter) Schema() schema.Mapping { return a.m }

// A relay that deletes a row once it is published leaves only the open rows
// in its table: progress counts the run's events, so five produced and two
// still in the table are three final (mysql-restart waits on it).
func TestProgressCountsDeletedRowsAsFinal(t *testing.T) {
	db, _ := localtest.MySQLWith(t,
		"CREATE TABLE relay (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload TEXT NOT NULL, lease_until DATETIME(6) NULL)",
		"CREATE TABLE relay_dead (id BIGINT PRIMARY KEY, payload TEXT NOT NULL)",
		"INSERT INTO relay (id, payload) VALUES (4, '{}'), (5, '{}')")
	m := schema.Mapping{Outbox: schema.Outbox{Table: "relay", ID: "id", Payload: "payload", LockedUntil: "lease_until", IDType: schema.KeyAuto},
		States: schema.States{Deleted: schema.DeletedPublished, DeadLetter: &schema.DeadLetter{Table: "relay_dead", ID: "id"}, Claimed: "lease_until > NOW(6)"}}
	require.NoError(t, m.Validate())
	rec := history.NewRecorder(history.Meta{})
	for id := int64(1); id <= 5; id++ {
		rec.AddEvent(history.Event{ID: id})
	}
	r := &session{o: Options{Adapter: shapedAdapter{m: m}}, dbs: &mysqlDatabase{}, db: db, rec: rec}
	done, total, err := r.progress(localtest.Context(t))
	require.NoError(t, err)
	require.Equal(t, [2]int{3, 5}, [2]int{done, total})

	r.rec = history.NewRecorder(history.Meta{})
	done, total, err = r.progress(localtest.Context(t))
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 0}, [2]int{done, total}, "rows committed before their events are recorded are not counted final")
}
