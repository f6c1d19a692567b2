package dispatcher

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// The memory-owner-registry bug (doc.go, "Bugs"): a registry of live
// instances, kept in a MEMORY-engine table, lets a claim adopt a dead
// instance's claims at once instead of waiting its lease out. The table
// outlives a dispatcher's crash and a cut connection, so without a server
// restart every owner that ever claimed is in it and the adoption never
// fires. A MySQL restart keeps the table's definition and forgets its rows:
// the first instance to claim after it finds every other owner missing and
// takes their claims while their leases still run.

// The memory-owner-recovery bug is the same registry in the recovery
// instead of the claim: each recovery round registers its instance, then
// resets to pending, with the expired claims, every processing row whose
// owner is missing. A restart empties the table, and the first instance to
// recover after it resets the other instances' claims while their leases
// still run: a reset, not a new claim, so only a history that records who
// wrote the row tells it from the owner's own release (I5, check/doc.go).

// registryDDL creates the registry. ENGINE=MEMORY is the bug's premise: the
// rows live in the server's memory only.
const registryDDL = `CREATE TABLE IF NOT EXISTS outbox_owners (
	owner   VARCHAR(128) NOT NULL PRIMARY KEY,
	seen_at DATETIME(6)  NOT NULL
) ENGINE=MEMORY`

// unregistered holds for an outbox row e whose owner has no registry row:
// to this design, a dead owner.
const unregistered = `NOT EXISTS (SELECT 1 FROM outbox_owners o WHERE o.owner = e.locked_by)`

// claimAdopting is memory-owner-registry's claim, in the claim's
// transaction: register this instance, then take what the base takes (due
// pending rows, oldest first, skipping locked ones) and, with them, every
// processing row whose owner is not registered, under a fresh lease and
// token. The write re-checks both conditions and must match every row read.
func (d *Dispatcher) claimAdopting(ctx context.Context, tx *sql.Tx, b *batch) error {
	if err := d.register(ctx, tx); err != nil {
		return err
	}
	events, err := scanEvents(ctx, tx, `SELECT id, event_type, aggregate_id, attempts FROM outbox_events e
		WHERE (status = 'pending' AND available_at <= NOW(6) AND `+d.headOfAggregate()+`)
			OR (status = 'processing' AND `+unregistered+`)
		ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED`, d.batchSize())
	if err != nil || len(events) == 0 {
		return err
	}
	b.events = events
	args := append([]any{d.cfg.InstanceID, b.token, d.cfg.Lease.Microseconds()}, dispatchkit.Args(b.ids())...)
	res, err := tx.ExecContext(ctx, `UPDATE outbox_events e SET status = 'processing', locked_by = ?, lock_token = ?,
		locked_until = NOW(6) + INTERVAL ? MICROSECOND, attempts = attempts + 1
		WHERE id IN `+dispatchkit.InList(len(events))+`
		AND (status = 'pending' OR (status = 'processing' AND `+unregistered+`))`, args...)
	if err != nil {
		return fmt.Errorf("claim and adopt: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(events)) {
		return fmt.Errorf("claim and adopt: updated %d of %d locked rows (%v)", n, len(events), err)
	}
	return nil
}

// register creates the registry once per process (DDL commits implicitly,
// so on the pool, not in the claim's transaction) and upserts this
// instance's row through tx: the claim's transaction before every claim
// (memory-owner-registry), or the pool at every recovery round
// (memory-owner-recovery, whose first round comes before the first claim).
// Either way an instance is registered before it holds anything. The MEMORY
// table ignores the transaction, so the row stays whatever the claim does.
func (d *Dispatcher) register(ctx context.Context, tx execer) error {
	if !d.registry {
		if _, err := d.db.ExecContext(ctx, registryDDL); err != nil {
			return fmt.Errorf("create the owner registry: %w", err)
		}
		d.registry = true
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO outbox_owners (owner, seen_at) VALUES (?, NOW(6))
		ON DUPLICATE KEY UPDATE seen_at = NOW(6)`, d.cfg.InstanceID)
	if err != nil {
		return fmt.Errorf("register %s: %w", d.cfg.InstanceID, err)
	}
	return nil
}

// execer is a pool or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// recoverUnregistered is memory-owner-recovery's recovery: register this
// instance, then reset what the base resets (claims whose lease ran out more
// than RecoveryMargin ago) and every processing row whose owner is not
// registered, lease or not.
func (d *Dispatcher) recoverUnregistered(ctx context.Context) (int64, error) {
	if err := d.register(ctx, d.db); err != nil {
		return 0, err
	}
	res, err := d.db.ExecContext(ctx, `UPDATE outbox_events e
		SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
		WHERE status = 'processing'
			AND (locked_until < NOW(6) - INTERVAL ? MICROSECOND OR `+unregistered+`)`,
		d.cfg.RecoveryMargin.Microseconds())
	if err != nil {
		return 0, fmt.Errorf("recover expired and unregistered claims: %w", err)
	}
	return res.RowsAffected()
}
