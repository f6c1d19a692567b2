package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// FaultStoreReadOnly is the kind of the window in which the harness held the
// store's own server read-only (SET GLOBAL read_only = ON on MariaDB or
// MySQL): the server itself refuses every write of an account without
// READ_ONLY ADMIN with its 1290 error, as an old primary does during a
// failover. The proxy's sql-read-only fault makes the same reply without
// the server; this is the real state.
const FaultStoreReadOnly = "store-read-only"

// CanSetStoreReadOnly says whether StoreReadOnly can run: the store is the
// harness's own MySQL server and the instances connect as accounts of
// their own, which read_only binds (the harness's root is not bound).
func (n *Nemesis) CanSetStoreReadOnly() bool { return n.readOnly != nil }

// StoreReadOnly holds the store's server read-only for d. Its window opens
// before read_only is set and closes after it is cleared, so every 1290 a
// dispatcher met inside it is the server's.
func (n *Nemesis) StoreReadOnly(ctx context.Context, d time.Duration) error {
	if n.readOnly == nil {
		return errors.New("store read-only: the environment's store is not the harness's own MySQL server with accounts per slot")
	}
	end := n.window(FaultStoreReadOnly, n.store, map[string]string{"mechanism": "SET GLOBAL read_only = ON", "for": d.String()})
	defer end()
	if err := n.readOnly(ctx, true); err != nil {
		return fmt.Errorf("store read-only: set read_only: %w", err)
	}
	sleepErr := n.Sleep(ctx, d)
	if err := n.readOnly(context.WithoutCancel(ctx), false); err != nil {
		return fmt.Errorf("store read-only: clear read_only: %w", err)
	}
	return sleepErr
}
