package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
)

// FaultNetworkTrapMiss is the record of a network trap's try that did not
// land (see doc.go for its params).
const FaultNetworkTrapMiss = "network-trap-miss"

// NetworkAtFinalize adds network fault f to the slot's store link, for d,
// the moment Redis shows a job created for an event the slot's instance
// holds: armed as the pause trap is (its Redis replies delayed, so its add
// lands and it learns so only later), the instance holds its claims and
// its next statement, the finalize, meets the fault. It re-arms until the
// fault is added or deadline passes. The fault is recorded as Network
// records it (its own kind, target "<store>/<instance>", what its toxics
// counted); each try without a hit is a "network-trap-miss". It reports
// whether the fault was added.
func (n *Nemesis) NetworkAtFinalize(ctx context.Context, slot string, f faultproxy.Fault, d, deadline time.Duration) (bool, error) {
	if n.obs == nil {
		return false, fmt.Errorf("network trap %s: no Redis observer to signal job creations", slot)
	}
	var finish func()
	set, err := n.springAtFinalize(ctx, func() string { return slot }, deadline, deadline, func(string) string {
		fin, err := n.addNetwork(n.store, slot, f, d)
		if err != nil {
			return "the fault could not be added: " + err.Error()
		}
		finish = fin
		return ""
	})
	if !set {
		return false, err
	}
	sleepErr := n.Sleep(ctx, d)
	finish()
	return true, errors.Join(err, sleepErr)
}

// springAtFinalize arms a slot (next names it, for each try of up to
// tryFor) as the pause trap is, and at a hit calls spring with that slot,
// which says why it could not act ("" when it did); it re-arms until spring
// acted or deadline passed, and reports whether it did. Each try without a
// hit, or whose spring failed, is a "network-trap-miss".
func (n *Nemesis) springAtFinalize(ctx context.Context, next func() string, tryFor, deadline time.Duration, spring func(slot string) string) (bool, error) {
	sprung := false
	_, err := rearm(ctx, 1, deadline, func(left time.Duration) (tryResult, error) {
		slot := next()
		hit, _, m, err := n.armForHit(ctx, slot, min(tryFor, left), FaultNetworkTrapMiss, func() string {
			why := spring(slot)
			sprung = why == ""
			return why
		})
		if err != nil {
			return tryResult{}, err
		}
		return tryResult{landed: hit.Job != "" && sprung, signals: m.seen}, nil
	})
	return sprung, err
}
