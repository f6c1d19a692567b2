package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// CanSetStoreReadOnly says whether StoreReadOnly can run: the store is the
// harness's own MySQL server and the instances connect as accounts of
// their own, which read_only binds (the harness's root is not bound).
func (n *Nemesis) CanSetStoreReadOnly() bool { return n.readOnly != nil }

// StoreReadOnly holds the store's server read-only for d. Its window opens
// before read_only is set and closes after it is cleared, so every 1290 a
// dispatcher met inside it is the server's.
func (n *Nemesis) StoreReadOnly(ctx context.Context, d time.Duration) error {
	finish, err := n.readOnlyOn(ctx, d, "")
	if err != nil {
		return err
	}
	return errors.Join(n.Sleep(ctx, d), finish())
}

// readOnlyTry is how long StoreReadOnlyAtFinalize waits on one slot for a
// job of an event its instance holds before it arms the next slot.
const readOnlyTry = time.Second

// StoreReadOnlyAtFinalize sets the store's server read-only for d the
// moment Redis shows a job created for an event some instance holds, armed
// as the network trap is (that instance's Redis replies delayed), so that
// its next statement, the finalize, is refused by the server. It arms the
// slots in turn, a second each, until one hits or deadline passes (each
// try without a hit is a "network-trap-miss"), and reports whether the
// store was made read-only.
func (n *Nemesis) StoreReadOnlyAtFinalize(ctx context.Context, d, deadline time.Duration) (bool, error) {
	if n.readOnly == nil || n.obs == nil {
		return false, errors.New("store read-only at a finalize: the store is not the harness's own MySQL server with accounts per slot, or no Redis observer signals job creations")
	}
	var finish func() error
	slot := ""
	next := func() string {
		if slot = n.nextAfter(slot); slot == "" {
			slot = n.slots[0]
		}
		return slot
	}
	set, err := n.springAtFinalize(ctx, next, readOnlyTry, deadline, func(at string) string {
		fin, err := n.readOnlyOn(ctx, d, at)
		if err != nil {
			return "read_only could not be set: " + err.Error()
		}
		finish = fin
		return ""
	})
	if !set {
		return false, err
	}
	return true, errors.Join(err, n.Sleep(ctx, d), finish())
}

// readOnlyOn opens the store-read-only window (at names the slot whose
// finalize it was set for, "" for none) and sets read_only; finish clears
// it and closes the window.
func (n *Nemesis) readOnlyOn(ctx context.Context, d time.Duration, at string) (finish func() error, err error) {
	if n.readOnly == nil {
		return nil, errors.New("store read-only: the environment's store is not the harness's own MySQL server with accounts per slot")
	}
	params := map[string]string{"mechanism": "SET GLOBAL read_only = ON", "for": d.String()}
	if at != "" {
		params["at_finalize_of"] = at
	}
	end := n.window(history.FaultStoreReadOnly, n.store, params)
	if err := n.readOnly(ctx, true); err != nil {
		end()
		return nil, fmt.Errorf("store read-only: set read_only: %w", err)
	}
	return func() error {
		defer end()
		if err := n.readOnly(context.WithoutCancel(ctx), false); err != nil {
			return fmt.Errorf("store read-only: clear read_only: %w", err)
		}
		return nil
	}, nil
}
