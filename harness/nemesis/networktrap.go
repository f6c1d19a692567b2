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
	_, err := rearm(ctx, 1, deadline, func(left time.Duration) (tryResult, error) {
		hit, _, m, err := n.armForHit(ctx, slot, left, FaultNetworkTrapMiss, func() string {
			fin, err := n.addNetwork(n.store, slot, f, d)
			if err != nil {
				return "the fault could not be added: " + err.Error()
			}
			finish = fin
			return ""
		})
		if err != nil {
			return tryResult{}, err
		}
		return tryResult{landed: hit.Job != "" && finish != nil, signals: m.seen}, nil
	})
	if finish == nil {
		return false, err
	}
	sleepErr := n.Sleep(ctx, d)
	finish()
	return true, errors.Join(err, sleepErr)
}
