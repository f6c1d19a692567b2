// Package supervisor runs dispatcher instances as real operating-system
// processes through an Adapter, drives process faults on them, and records
// everything it does to the run's history (history.ProcessEvent).
//
// # Adapters
//
// The harness states what it needs from a dispatcher in Adapter (a
// consumer-side interface): a name, a build step run once per run
// (Prepare), how to start one instance (Spec), the dispatcher's schema
// mapping, and its Capabilities (which contract tuning variables it honours,
// whether it exposes crash points, whether it stops gracefully on SIGTERM).
//
// # Slots and instances
//
// A slot ("d1", "d2", ...) is a place in the run where one instance at a time
// runs. Every start of a slot gets a fresh instance id, handed to the process
// as OUTBOX_INSTANCE_ID: the first start of slot d1 is "d1", its restarts
// "d1r1", "d1r2", ... (ids never repeat within a Supervisor). An instance's
// stdout and stderr go to logDir/<instance-id>.log.
//
// SetProcessEnv adds variables to every later start of one slot after the
// adapter's Spec, whatever the adapter passes on (LD_PRELOAD is prepended
// to): how the clock-skew scenario skews one instance (harness/clockskew).
//
// # Signals
//
// Every instance is started in its own process group (Setpgid) with
// Pdeathsig=SIGKILL, so no instance outlives the harness, and every signal
// goes to the whole group, so a dispatcher started through a wrapper (a
// shell, npm) is signalled with its children.
//
//   - Kill: SIGKILL, then wait for the exit. A crash.
//   - Pause / Resume: SIGSTOP / SIGCONT; Pause returns once /proc shows the
//     process stopped, Resume once it no longer does.
//   - Term: SIGTERM (and SIGCONT when paused, so the signal is handled), wait
//     up to a timeout, then SIGKILL; the error (ErrTermTimeout) says so.
//   - Restart: Kill when alive, then Start again with the same slot env and a
//     new instance id.
//   - Close: SIGKILL every group (then SIGCONT, so a stopped one dies too)
//     and wait; nothing is left running.
//
// When an instance's group leader exits, the rest of its group is SIGKILLed
// too, so a graceful exit leaves no stray child behind.
//
// # History
//
// Each action is recorded as a history.ProcessEvent on the harness clock:
// start (with the pid), kill, stop, cont, term, crashpoint (the failpoint's
// name) and exit ("exit code N" or "signal killed", and for an exit the
// harness did not cause, the last stderr line). An action is recorded before
// its signal is sent and an exit only after the instance's output is read to
// its end, so events of one instance are in causal order. Exits() lists every
// exit; Exit.Unexpected tells those the harness did not cause, and
// Exit.String reads "instance d2 exited with code 2: <last stderr line>".
//
// # Crash points
//
// A dispatcher with crash points (Capabilities.CrashPoints) reads
// OUTBOX_FAILPOINTS, built by FailpointEnv:
//
//	entries   = entry *( ";" entry )
//	entry     = name "=" action [ "@" trigger ]
//	name      = "after-claim" | "after-enqueue" | "before-finalize-commit" | "after-finalize-commit"
//	action    = "crash" | "sleep(" go-duration ")"
//	trigger   = "always" | "nth:" N | "prob:" p      (N >= 1, 0 < p <= 1; default always)
//
// and OUTBOX_FAILPOINT_SEED (an integer seeding prob triggers). Before
// crashing at a point, the dispatcher prints exactly the line
//
//	failpoint <name>: crash
//
// on stderr and SIGKILLs itself. The supervisor spots that line while copying
// stderr to the log, records a crashpoint event, and once the process has
// exited sends a CrashEvent on CrashPoints() (unless the harness itself
// killed or stopped the instance meanwhile).
//
// # Window trap
//
// A black-box dispatcher has no crash points, so the crash window between a
// job's add to Redis and the event's finalize in MySQL is trapped from
// outside (TrapWindow): when an observer reports a job created by the
// instance's batch, the supervisor freezes the instance (SIGSTOP, the fastest
// thing it can do), blackholes the instance's MySQL link through a function
// the caller passes (the fault proxy), SIGKILLs the instance and heals the
// link. The trap is one fault window "window-trap" in the history; the
// caller's Hit params (the events held, the BullMQ id, when it was seen) are
// recorded with it (see runner/doc.go for the fields).
package supervisor
