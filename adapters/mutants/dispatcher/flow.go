package dispatcher

import (
	"fmt"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"strings"
	"time"
)

// exclusionKind is what keeps two instances off one event.
type exclusionKind int

const (
	// exclusionRowLeases: row locks at the claim, a lease per row, and
	// writes fenced by the claim's token (the base).
	exclusionRowLeases exclusionKind = iota
	// exclusionRedisLockOnly: a Redis dispatch lock is trusted as the only
	// exclusion, so claims and finalizes carry no row guard, rows get no
	// lease, and the lock holder adopts every processing row as a dead
	// holder's leftover (global-lock).
	exclusionRedisLockOnly
)

// claimKind is how due events are taken.
type claimKind int

const (
	claimSkipLocked        claimKind = iota // SELECT ... FOR UPDATE SKIP LOCKED, guarded UPDATE (base)
	claimSelectThenUpdate                   // plain SELECT, UPDATE by id with no status guard (bug)
	claimCompareAndSet                      // one row per transaction, UPDATE ... AND status = 'pending' (nest-single)
	claimCursor                             // skip locked, but new rows only past a high-water mark of ids (bug)
	claimAdoptUnregistered                  // skip locked, also adopting processing rows of owners missing from a MEMORY registry (bug)
)

// recoveryKind is how expired claims return to pending.
type recoveryKind int

const (
	recoveryGuarded         recoveryKind = iota // one UPDATE guarded by status and expiry (base)
	recoveryNone                                // never (bug)
	recoverySelectThenReset                     // SELECT expired ids, UPDATE by id with no guard (bug)
	recoveryUnregistered                        // also resets processing rows of owners missing from a MEMORY registry (bug)
)

// addKind is how a job is written to BullMQ.
type addKind int

const (
	addProducer  addKind = iota // reference/bullmq: jobId = ai_jobs.id, a no-op when it exists (base)
	addNumericID                // no custom jobId: BullMQ's INCR counter names the job (bug)
	addBlindPush                // HSET and LPUSH with no existence check and no events (bug)
	addOverwrite                // the producer, then HSET data and opts over an existing job (bug)
)

// flow is every behaviour a bug or a mode may change. The base is
// baseFlow(); a bug changes exactly one field (TestEachBugChangesOneField).
type flow struct {
	exclusion          exclusionKind
	claim              claimKind
	recovery           recoveryKind
	add                addKind
	addFirst           bool // the add comes before the finalize (false: mark-before-enqueue)
	fenced             bool // finalize writes only rows still ours (false: unfenced-finalize)
	queueJobs          bool // finalize moves the job created -> queued (false: published-not-queued)
	backoff            bool // a transient failure pushes available_at out (false: no-backoff)
	failAtMax          bool // a transient failure at max attempts fails (false: unbounded-attempts)
	poisonFails        bool // a permanent failure fails at once (false: poison-as-transient)
	dbClockLease       bool // the claim's lease end is NOW(6) + lease (false: app-clock-lease, the instance's own clock)
	orderAcrossBackoff bool // an earlier event of an aggregate in backoff holds the later ones (false: order-after-backoff)
	// sqlErrorFails: a MySQL error reply to the finalize fails the batch's
	// events (true: sql-error-permanent); the base leaves them to recovery.
	sqlErrorFails bool
	// replyFails: a Redis error reply to an add fails the event at once
	// (true: transient-as-permanent); the base retries it.
	replyFails bool
	// untimed: no statement or command timeout, and a finalize that failed
	// is written again by id, unfenced, once the link answers (true:
	// no-timeouts-unfenced); the base bounds every wait and leaves a failed
	// finalize to lease recovery.
	untimed bool
	// localTimes: the claim's locked_until and a retry's available_at are
	// application time written as the process's local wall time, text in
	// its TZ (true: local-zone-times); the base writes NOW(6) + span.
	localTimes bool
	// unfitted: last_error is written as it comes, and a refused failure
	// write goes back to pending as a transient failure (true:
	// unfitted-failure); the base fits the text to the column.
	unfitted bool
	// readOnlyFails: a finalize the store refused with its read-only error
	// (1290, 1836) is a verdict on the batch, whose events are written
	// failed once the store takes writes again (true:
	// read-only-as-permanent); the base leaves them to recovery.
	readOnlyFails bool
	// leaseEndFence: the claim writes the lease end computed here, to the
	// microsecond, and the finalize recognises its rows by locked_until
	// equal to it instead of by the token (true: lease-end-fence); where
	// the column keeps whole seconds the server cut the value, and the
	// finalize never finds its rows.
	leaseEndFence bool
	// scriptOnce: the add script is loaded into Redis once, and a later
	// SCRIPT LOAD is skipped as if Redis still had it (true:
	// script-loaded-once); after a restart empties Redis's script cache
	// every add meets NOSCRIPT and is retried until the event fails.
	scriptOnce bool
	// waitUnchecked: an add that WAIT did not count on the replicas asked
	// for (bullmq.ErrNotReplicated) is published all the same (true:
	// wait-unchecked); the base retries it.
	waitUnchecked bool

	// Comparison modes; zero values mean the contract's configuration.
	tickLock     bool          // take the Redis dispatch lock for each tick, one batch per tick
	pollInterval time.Duration // fixed poll interval instead of OUTBOX_POLL_INTERVAL
	batchSize    int           // fixed batch size instead of OUTBOX_BATCH_SIZE
}

// baseFlow is the correct dispatcher.
func baseFlow() flow {
	return flow{
		exclusion: exclusionRowLeases, claim: claimSkipLocked, recovery: recoveryGuarded, add: addProducer,
		addFirst: true, fenced: true, queueJobs: true, backoff: true, failAtMax: true, poisonFails: true,
		dbClockLease: true, orderAcrossBackoff: true,
	}
}

type deviation struct {
	name  string
	apply func(*flow)
}

// bugs lists every bug with its one change to the base, in catalog order.
var bugs = []deviation{
	{names.BugSelectThenUpdate, func(f *flow) { f.claim = claimSelectThenUpdate }},
	{names.BugNoJobID, func(f *flow) { f.add = addNumericID }},
	{names.BugMarkBeforeEnqueue, func(f *flow) { f.addFirst = false }},
	{names.BugNoLeaseRecovery, func(f *flow) { f.recovery = recoveryNone }},
	{names.BugUnfencedFinalize, func(f *flow) { f.fenced = false }},
	{names.BugRecoveryOverwritesFinalized, func(f *flow) { f.recovery = recoverySelectThenReset }},
	{names.BugPoisonAsTransient, func(f *flow) { f.poisonFails = false }},
	{names.BugNoBackoff, func(f *flow) { f.backoff = false }},
	{names.BugUnboundedAttempts, func(f *flow) { f.failAtMax = false }},
	{names.BugPushWithoutCheck, func(f *flow) { f.add = addBlindPush }},
	{names.BugOverwriteJobData, func(f *flow) { f.add = addOverwrite }},
	{names.BugPublishedNotQueued, func(f *flow) { f.queueJobs = false }},
	{names.BugGlobalLock, func(f *flow) { f.exclusion = exclusionRedisLockOnly }},
	{names.BugAppClockLease, func(f *flow) { f.dbClockLease = false }},
	{names.BugOrderAfterBackoff, func(f *flow) { f.orderAcrossBackoff = false }},
	{names.BugCursorClaim, func(f *flow) { f.claim = claimCursor }},
	{names.BugSQLErrorPermanent, func(f *flow) { f.sqlErrorFails = true }},
	{names.BugMemoryOwnerRegistry, func(f *flow) { f.claim = claimAdoptUnregistered }},
	{names.BugMemoryOwnerRecovery, func(f *flow) { f.recovery = recoveryUnregistered }},
	{names.BugTransientAsPermanent, func(f *flow) { f.replyFails = true }},
	{names.BugNoTimeoutsUnfenced, func(f *flow) { f.untimed = true }},
	{names.BugLocalZoneTimes, func(f *flow) { f.localTimes = true }},
	{names.BugUnfittedFailure, func(f *flow) { f.unfitted = true }},
	{names.BugReadOnlyAsPermanent, func(f *flow) { f.readOnlyFails = true }},
	{names.BugLeaseEndFence, func(f *flow) { f.leaseEndFence = true }},
	{names.BugScriptLoadedOnce, func(f *flow) { f.scriptOnce = true }},
	{names.BugWaitUnchecked, func(f *flow) { f.waitUnchecked = true }},
}

// modes lists the comparison designs.
var modes = []deviation{
	// The NestJS seed: a CAS claim of one event per transaction, a 5 s poll.
	{names.ModeNestSingle, func(f *flow) {
		f.claim, f.batchSize, f.pollInterval = claimCompareAndSet, 1, 5*time.Second
	}},
	// The queue-constants seed: a Redis dispatch lock per 1 s tick, batch 20.
	{names.ModeGlobalLockBatch20, func(f *flow) {
		f.tickLock, f.batchSize, f.pollInterval = true, 20, time.Second
	}},
}

// Bugs returns the bug names, in catalog order.
func Bugs() []string { return deviationNames(bugs) }

// Modes returns the comparison mode names.
func Modes() []string { return deviationNames(modes) }

func deviationNames(ds []deviation) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.name
	}
	return out
}

// flowFor returns the flow of a bug or a mode ("" for neither: the base).
func flowFor(bug, mode string) (flow, error) {
	f := baseFlow()
	if bug != "" && mode != "" {
		return f, fmt.Errorf("%s=%q and %s=%q are both set: a mode is a correct design, give one or the other", names.EnvMutant, bug, names.EnvMode, mode)
	}
	if bug != "" {
		d, ok := find(bugs, bug)
		if !ok {
			return f, fmt.Errorf("%s=%q: unknown mutant; use one of %s", names.EnvMutant, bug, strings.Join(Bugs(), ", "))
		}
		d.apply(&f)
	}
	if mode != "" {
		d, ok := find(modes, mode)
		if !ok {
			return f, fmt.Errorf("%s=%q: unknown mode; use one of %s", names.EnvMode, mode, strings.Join(Modes(), ", "))
		}
		d.apply(&f)
	}
	return f, nil
}

func find(ds []deviation, name string) (deviation, bool) {
	for _, d := range ds {
		if d.name == name {
			return d, true
		}
	}
	return deviation{}, false
}
