package contract

// The variables through which the harness arms a dispatcher's crash points.
const (
	EnvFailpoints    = "OUTBOX_FAILPOINTS"
	EnvFailpointSeed = "OUTBOX_FAILPOINT_SEED"
)

// CrashPoint names a place in one batch's dispatch where a dispatcher that
// exposes crash points can crash or sleep on the harness's request.
type CrashPoint string

// The crash points, in the order a batch passes them.
const (
	// AfterClaim: the claim transaction committed with at least one event.
	AfterClaim CrashPoint = "after-claim"
	// AfterEnqueue: the batch's BullMQ add returned.
	AfterEnqueue CrashPoint = "after-enqueue"
	// BeforeFinalizeCommit: inside the finalize transaction, before COMMIT.
	BeforeFinalizeCommit CrashPoint = "before-finalize-commit"
	// AfterFinalizeCommit: the finalize COMMIT returned.
	AfterFinalizeCommit CrashPoint = "after-finalize-commit"
)

// CrashPoints lists every crash point, in the order a batch passes them.
func CrashPoints() []CrashPoint {
	return []CrashPoint{AfterClaim, AfterEnqueue, BeforeFinalizeCommit, AfterFinalizeCommit}
}

// Known tells whether p is one of CrashPoints.
func (p CrashPoint) Known() bool {
	for _, q := range CrashPoints() {
		if p == q {
			return true
		}
	}
	return false
}

// CrashPointNames is CrashPoints as plain strings, for messages and for
// schedules stored as text.
func CrashPointNames() []string {
	var out []string
	for _, p := range CrashPoints() {
		out = append(out, string(p))
	}
	return out
}
