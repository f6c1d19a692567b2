package scenarios_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// time-zones against the reference: the server ran in +07:00 and the
// instances in America/New_York (meta.json records both as the harness
// applied and read them), leases and backoffs were written and a dead
// owner's lease recovered, every invariant holds, and the server's global
// time zone is UTC again after the run.
func TestReferencePassesTimeZones(t *testing.T) {
	e := endToEnd(t)
	started := time.Now()
	o := runScenario(t, e, catalogScenario(t, "time-zones"), runner.Options{Adapter: refadapter.New()})
	requireAllPass(t, o)
	z := o.History.Meta.Zones
	require.NotNil(t, z, "the run records the zones it applied")
	require.Equal(t, "+07:00", z.Server)
	require.Equal(t, "+07:00", z.ServerOffset, "a new session's NOW() is seven hours ahead of UTC_TIMESTAMP()")
	require.Equal(t, "America/New_York", z.Process)
	require.True(t, z.Differ())
	for _, l := range o.Landing {
		require.True(t, l.Met, "%s: %s", l.Fault, l.Reason)
		t.Logf("%s landed: %s", l.Fault, l.Reason)
	}
	db, err := sql.Open("mysql", e.MySQLDSN(""))
	require.NoError(t, err)
	defer db.Close()
	var zone string
	require.NoError(t, db.QueryRow("SELECT @@global.time_zone").Scan(&zone))
	require.Equal(t, "+00:00", zone, "the server's time zone is restored after the run")
	t.Logf("reference passes time-zones in %.1f s", time.Since(started).Seconds())
}
