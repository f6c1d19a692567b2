package dispatcher

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
)

// memory-owner-registry: while every owner is registered, a second instance
// leaves the first one's claim alone, as the base does; once the registry
// is empty (what a MySQL restart does to a MEMORY table: the definition
// stays, the rows go) it takes the claim over while its lease still runs.
// The base takes nothing either time.
func TestMemoryOwnerRegistryAdoptsClaimsOnceTheRegistryForgetsTheirOwner(t *testing.T) {
	for _, bug := range []string{names.BugMemoryOwnerRegistry, ""} {
		e := newEnv(t)
		id := e.addValid("job-a")
		a, b := e.dispatcher(e.config("a", bug)), e.dispatcher(e.config("b", bug))
		require.Equal(t, []int64{id}, claimedIDs(t, a), "bug %q", bug)
		held := e.row(id)
		require.Empty(t, claimedIDs(t, b), "bug %q: a's claim is registered and unexpired", bug)
		if bug != "" {
			require.Equal(t, []string{"a", "b"}, e.owners(), "each instance registered before its claim")
			_, err := e.db.Exec(`DELETE FROM outbox_owners`)
			require.NoError(t, err)
		}
		got := claimedIDs(t, b)
		r := e.row(id)
		if bug == "" {
			require.Empty(t, got, "the base waits the lease out")
			require.Equal(t, []string{"a", held.Token}, []string{r.LockedBy, r.Token})
			continue
		}
		require.Equal(t, []int64{id}, got, "b adopted the claim of a, whom it found unregistered")
		require.Equal(t, "b", r.LockedBy)
		require.NotEqual(t, held.Token, r.Token)
		require.Equal(t, []string{"pending->processing", "processing->processing"}, e.transitions(id))
		var left int64
		require.NoError(t, e.db.QueryRow(`SELECT TIMESTAMPDIFF(MICROSECOND, NOW(6), locked_until) FROM outbox_events WHERE id = ?`, id).Scan(&left))
		require.Positive(t, left, "a fresh lease")
		require.Equal(t, []string{"b"}, e.owners(), "b registered again before its claim; a has not yet")
	}
}

// memory-owner-recovery: while every owner is registered, a second
// instance's recovery leaves the first one's live claim alone, as the
// base's does; once the registry is empty it resets the claim to pending
// while its lease still runs. The base resets nothing either time.
func TestMemoryOwnerRecoveryResetsClaimsOnceTheRegistryForgetsTheirOwner(t *testing.T) {
	ctx := context.Background()
	for _, bug := range []string{names.BugMemoryOwnerRecovery, ""} {
		e := newEnv(t)
		id := e.addValid("job-a")
		a, b := e.dispatcher(e.config("a", bug)), e.dispatcher(e.config("b", bug))
		for _, d := range []*Dispatcher{a, b} {
			n, err := d.recoverExpired(ctx)
			require.NoError(t, err, "bug %q", bug)
			require.Zero(t, n, "bug %q: nothing to recover yet", bug)
		}
		require.Equal(t, []int64{id}, claimedIDs(t, a), "bug %q", bug)
		n, err := b.recoverExpired(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "bug %q: a is registered and its lease runs", bug)
		if bug != "" {
			require.Equal(t, []string{"a", "b"}, e.owners(), "each instance registered at its recovery")
			_, err := e.db.Exec(`DELETE FROM outbox_owners`)
			require.NoError(t, err)
		}
		n, err = b.recoverExpired(ctx)
		require.NoError(t, err)
		r := e.row(id)
		if bug == "" {
			require.Zero(t, n, "the base waits the lease out")
			require.Equal(t, []string{"processing", "a"}, []string{r.Status, r.LockedBy})
			continue
		}
		require.Equal(t, int64(1), n, "b reset the claim of a, whom it found unregistered")
		require.Equal(t, []string{"pending", ""}, []string{r.Status, r.LockedBy})
		require.Equal(t, []string{"pending->processing", "processing->pending"}, e.transitions(id))
		require.Equal(t, []string{"b"}, e.owners(), "b registered again at its recovery; a has not yet")
	}
}

// owners lists the registry's owners, in order.
func (e *env) owners() []string {
	e.t.Helper()
	rows, err := e.db.Query(`SELECT owner FROM outbox_owners ORDER BY owner`)
	require.NoError(e.t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		require.NoError(e.t, rows.Scan(&o))
		out = append(out, o)
	}
	require.NoError(e.t, rows.Err())
	return out
}
