package dispatcher

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"github.com/outboxchaos/outboxchaos/reference"
)

// local-zone-times writes locked_until and available_at as the process's
// local wall time. The dispatcher's MySQL session runs in +07:00 (the
// DSN's time_zone), so the base's lease end and backoff end lie their span
// after the session's NOW(6), and the bug's lie the difference between
// this process's zone and +07:00 away from it.
func TestLocalZoneTimesWriteTheProcesssWallTime(t *testing.T) {
	_, local := time.Now().Zone()
	shift := time.Duration(local)*time.Second - 7*time.Hour
	for _, c := range []struct {
		bug string
		off time.Duration // from where the span should end
	}{{"", 0}, {names.BugLocalZoneTimes, shift}} {
		e := newEnv(t)
		id := e.addValid("job-a")
		east, err := reference.OpenMySQL(e.DSN + "&time_zone=" + url.QueryEscape("'+07:00'"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = east.Close() })
		d := e.dispatcher(e.config("d1", c.bug), WithDB(east))
		b, err := d.claim(context.Background())
		require.NoError(t, err)
		require.Equal(t, []int64{id}, b.ids())
		var micros int64
		require.NoError(t, east.QueryRow(`SELECT TIMESTAMPDIFF(MICROSECOND, NOW(6), locked_until) FROM outbox_events WHERE id = ?`, id).Scan(&micros))
		off := time.Duration(micros)*time.Microsecond - d.cfg.Lease
		require.InDelta(t, c.off.Seconds(), off.Seconds(), 2, "bug %q: lease end %s from NOW(6) + lease, want about %s", c.bug, off, c.off)

		tx, err := east.Begin()
		require.NoError(t, err)
		require.NoError(t, d.writeTransient(context.Background(), tx, b, b.events[0], "queue broken"))
		require.NoError(t, tx.Commit())
		require.NoError(t, east.QueryRow(`SELECT TIMESTAMPDIFF(MICROSECOND, NOW(6), available_at) FROM outbox_events WHERE id = ?`, id).Scan(&micros))
		off = time.Duration(micros) * time.Microsecond
		require.InDelta(t, c.off.Seconds(), off.Seconds(), 2+d.cfg.BackoffMax.Seconds(), "bug %q: backoff end %s from NOW(6), want about %s", c.bug, off, c.off)
	}
}
