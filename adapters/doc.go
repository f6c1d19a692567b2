// Package adapters holds the dispatchers the harness can test and explains
// how a dispatcher plugs in. It has no code of its own: the interface lives
// with its consumer, harness/supervisor (Adapter, Spec, Capabilities,
// Instance), and each adapter is a package below this one.
//
// # What an adapter answers
//
//   - Name: the dispatcher's name in reports.
//   - Prepare(ctx, workDir): the build step, run once per run before any
//     instance starts (go build, npm ci, nothing). workDir is the run's own
//     scratch directory.
//   - Spec(instance): how to start one instance as an operating-system
//     process: executable, arguments, working directory and the FULL
//     environment. The instance carries the contract's variables
//     (docs/contract.md §3: OUTBOX_MYSQL_DSN, OUTBOX_MYSQL_URL,
//     OUTBOX_REDIS_URL, OUTBOX_QUEUES, OUTBOX_INSTANCE_ID, OUTBOX_BULL_PREFIX
//     and the tuning variables), already pointing at the fault proxy; the
//     adapter passes them through or maps them to its own flags or config.
//     supervisor.HarnessEnviron builds an environment from the harness's own
//     minus any OUTBOX_* of it, so a variable left in the user's shell never
//     reaches an instance.
//   - Schema: the dispatcher's DDL, table and column names and status words
//     (harness/schema.Mapping); the reference's is schema.Reference().
//   - Capabilities: the tuning variables it honours (checkers derive their
//     bounds only from those), whether it exposes crash points, whether it
//     stops gracefully on SIGTERM. Scenarios read them: a dispatcher without
//     crash points gets the window trap instead, one without a graceful stop
//     is not held to one.
//
// # What a dispatcher process must do
//
// Read its configuration at start and exit non-zero at once with a one-line
// reason on stderr when it is wrong; the supervisor reports "instance d2
// exited with code 2: <that line>". Write logs to stdout and stderr (each
// instance gets logDir/<instance-id>.log). On SIGTERM stop claiming, finish
// or release what it holds and exit 0. It may be SIGKILLed, SIGSTOPped and
// SIGCONTed at any moment; it runs in its own process group and every signal
// goes to the whole group.
//
// # Crash points
//
// A dispatcher declaring CrashPoints reads OUTBOX_FAILPOINTS and
// OUTBOX_FAILPOINT_SEED (syntax in harness/supervisor's package
// documentation and supervisor.FailpointEnv), with the points after-claim,
// after-enqueue, before-finalize-commit and after-finalize-commit. Right
// before crashing at a point it prints exactly "failpoint <name>: crash" on
// stderr, then SIGKILLs itself. A dispatcher without crash points is still
// tested in its crash window: the supervisor's window trap freezes it when
// Redis shows its job, cuts its MySQL link, kills it and heals the link.
//
// # Adapters shipped
//
//   - reference (package refadapter): builds reference/cmd/dispatcher with
//     go build into <workDir>/bin/dispatcher, once per work directory in a
//     process; honours every tuning variable, has crash points and a
//     graceful SIGTERM. Options.Package reuses it for another main package
//     of this module that keeps the reference's contract.
package adapters
