// Package names holds the names the mutant binary answers to: each bug's
// name (the value of OUTBOXCHAOS_MUTANT), each comparison design's (the
// value of OUTBOXCHAOS_MODE), and those two variables. It is a leaf: the
// adapters that start the binary (adapters/mutants, adapters/designs) name
// bugs and modes through it without linking the dispatcher they start, and
// the dispatcher (adapters/mutants/dispatcher) reads the same names.
package names

// The variables that choose a bug or a mode. They do not start with
// OUTBOX_, so the reference's configuration reader, which refuses unknown
// OUTBOX_ variables, never sees them.
const (
	EnvMutant = "OUTBOXCHAOS_MUTANT"
	EnvMode   = "OUTBOXCHAOS_MODE"
)

// Bug names: the values of OUTBOXCHAOS_MUTANT. Each one changes exactly one
// field of the base flow (package adapters/mutants/dispatcher, its doc.go).
const (
	BugSelectThenUpdate            = "select-then-update"
	BugNoJobID                     = "no-jobid"
	BugMarkBeforeEnqueue           = "mark-before-enqueue"
	BugNoLeaseRecovery             = "no-lease-recovery"
	BugUnfencedFinalize            = "unfenced-finalize"
	BugRecoveryOverwritesFinalized = "recovery-overwrites-finalized"
	BugPoisonAsTransient           = "poison-as-transient"
	BugNoBackoff                   = "no-backoff"
	BugUnboundedAttempts           = "unbounded-attempts"
	BugPushWithoutCheck            = "push-without-check"
	BugOverwriteJobData            = "overwrite-job-data"
	BugPublishedNotQueued          = "published-not-queued"
	BugGlobalLock                  = "global-lock"
	BugAppClockLease               = "app-clock-lease"
	BugOrderAfterBackoff           = "order-after-backoff"
	BugCursorClaim                 = "cursor-claim"
	BugSQLErrorPermanent           = "sql-error-permanent"
	BugMemoryOwnerRegistry         = "memory-owner-registry"
	BugMemoryOwnerRecovery         = "memory-owner-recovery"
	BugTransientAsPermanent        = "transient-as-permanent"
	BugNoTimeoutsUnfenced          = "no-timeouts-unfenced"
	BugLocalZoneTimes              = "local-zone-times"
	BugUnfittedFailure             = "unfitted-failure"
	BugReadOnlyAsPermanent         = "read-only-as-permanent"
	BugLeaseEndFence               = "lease-end-fence"
	BugScriptLoadedOnce            = "script-loaded-once"
	BugWaitUnchecked               = "wait-unchecked"
)

// Mode names: the values of OUTBOXCHAOS_MODE. A mode is a correct but slow
// design from a seed, for benchmarks; it is not a bug.
const (
	ModeNestSingle        = "nest-single"
	ModeGlobalLockBatch20 = "global-lock-batch20"
)
