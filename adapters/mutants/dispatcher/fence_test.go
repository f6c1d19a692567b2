package dispatcher

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
)

// lease-end-fence recognises its rows by the lease end it computed. On the
// contract's DATETIME(6) that finds them, as the token does; once
// locked_until keeps whole seconds the server cut what the claim wrote, and
// its finalize finds none of its rows, where the base's token still does.
func TestLeaseEndFenceLosesItsRowsOnWholeSeconds(t *testing.T) {
	for _, c := range []struct {
		bug          string
		wholeSeconds bool
		want         string
	}{
		{"", false, "published"},
		{"", true, "published"},
		{names.BugLeaseEndFence, false, "published"},
		{names.BugLeaseEndFence, true, "processing"},
	} {
		e := newEnv(t)
		if c.wholeSeconds {
			_, err := e.db.Exec(`ALTER TABLE outbox_events MODIFY locked_until DATETIME NULL`)
			require.NoError(t, err)
		}
		id := e.addValid("job-a")
		d := e.dispatcher(e.config("d1", c.bug))
		b, err := d.claim(context.Background())
		require.NoError(t, err)
		require.Equal(t, []int64{id}, b.ids())
		require.NoError(t, d.finalize(context.Background(), b, []fate{publish(howAdded)}))
		require.Equal(t, c.want, e.row(id).Status, "bug %q, whole seconds %v", c.bug, c.wholeSeconds)
	}
}
