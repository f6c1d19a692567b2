package dispatcher

import (
	"context"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

// lateCommit holds an event's transaction open while a later event commits
// and is claimed, then commits it: the lower id becomes visible behind the
// higher one. It returns the late event's id and what a claim after the
// commit takes.
func lateCommit(t *testing.T, e *env, bug string) (int64, []int64) {
	ctx := context.Background()
	d := e.dispatcher(e.config("a", bug))
	tx, err := e.db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer tx.Rollback()
	_, err = tx.Exec(`INSERT INTO ai_jobs (id, queue_name, status) VALUES ('job-late', ?, 'created')`, queueA)
	require.NoError(t, err)
	res, err := tx.Exec(`INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES (?, 'job-late', '{}')`, reference.EventTypeEnqueue)
	require.NoError(t, err)
	late, err := res.LastInsertId()
	require.NoError(t, err)
	early := e.addValid("job-early")
	require.Greater(t, early, late, "AUTO_INCREMENT handed the held transaction the lower id")
	b, err := d.claim(ctx)
	require.NoError(t, err)
	require.Equal(t, []int64{early}, b.ids(), "the uncommitted lower id is not visible yet")
	require.NoError(t, tx.Commit())
	b, err = d.claim(ctx)
	require.NoError(t, err)
	return late, b.ids()
}

func TestCursorClaimNeverTakesAnIDCommittedBehindAHigherOne(t *testing.T) {
	e := newEnv(t)
	late, ids := lateCommit(t, e, names.BugCursorClaim)
	require.Empty(t, ids, "the cursor passed the late id")
	require.Equal(t, "pending", e.row(late).Status)

	base := newEnv(t)
	late, ids = lateCommit(t, base, "")
	require.Equal(t, []int64{late}, ids, "the base claims by status, whatever the id")
}
