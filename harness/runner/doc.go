// Package runner runs one scenario against one adapter and decides, invariant
// by invariant, whether the dispatcher kept its promises.
//
// # Phases
//
//  1. setup: open the environment (local private servers, external, or
//     testcontainers), create a fresh database and apply the adapter's schema,
//     install the history triggers, start the embedded fault proxy with one
//     MySQL link and one Redis link per instance slot, start the Redis observer
//     and (when the scenario asks) the consumer, build the adapter, start the
//     instances with the contract's environment pointing at their links.
//  2. load: the workload producer commits the scenario's events at its rate and
//     mix while the scenario's schedule drives the nemesis (process signals,
//     crash points, network faults, server restarts). Every fault is recorded
//     with its start and end.
//  3. heal: every fault is removed, paused instances resumed, dead slots
//     restarted without crash points.
//  4. drain: wait until no event is pending or processing (quiet), or until
//     the drain deadline, which is long enough for a lease, a full backoff and
//     a few polls.
//  5. check: stop the instances gracefully, read the history from MySQL,
//     scan Redis, write the run folder, run the checkers, write the reports.
//
// All randomness comes from one seed: the workload's mix, the schedule's
// choices, the fault proxy's draws, the failpoints' probabilities. The seed,
// the scenario and its parameters are written to the run folder, and the
// command that reproduces the run is in results.json and index.html.
//
// # Traps for black-box dispatchers
//
// A dispatcher without crash points is reached from outside. A trap
// subscribes to the Redis observer's creation signal (observe.Creation: a
// new job hash, an "added" stream entry, or an id pushed into wait, paused,
// prioritized or delayed), arms the slot's instance by delaying its Redis
// replies by 300 ms (its add lands, it learns so only later), and looks each
// signalled job up: the job's ai_jobs ids (history.JobCandidates: the BullMQ
// id, or data.jobId) must have an event in processing whose locked_by is the
// instance, its own claim. Without a locked_by column any job counts. On a
// match:
//   - the window trap (CrashWindow, TrapCrashes) SIGSTOPs the instance,
//     blackholes its MySQL link, SIGKILLs it, heals the link, restarts the
//     slot. TrapCrashes arms the instance running longest (a restarted one
//     may still be booting), re-arming until the planned count has landed
//     or its budget has passed, and stops early when a try saw no job
//     created after earlier tries saw some (the workload is over; before
//     the first job, instances may still boot); it notes
//     "window_traps_landed" = "k/N" in the run's params.
//   - the pause trap (PauseTrap) SIGSTOPs the instance for a span past its
//     lease, SIGCONTs it, and waits a settle span; it re-arms until one pause
//     lands or its deadline passes. Its Pause.While runs while the instance
//     is stopped (mysql-restart restarts the server there).
//   - the finalize trap (FinalizeTrap) holds the instance's next COMMIT on
//     its MySQL link (faultproxy's commit-hold-mysql) for a span past its
//     lease: the finalize's statements ran, its row locks outlive the lease
//     while others recover and claim, as a pause at before-finalize-commit
//     would. It re-arms until one hold lands (a COMMIT caught within
//     commitWait of the hit) or its deadline passes.
//
// Fault records (faults.jsonl), one per landed trap or missed try:
//
//	kind              target       params
//	window-trap       instance     job (ai_jobs id), events (ids of the events of job the
//	                               instance held, comma-separated; absent with "held" =
//	                               "unknown: ..." when the mapping has no locked_by),
//	                               queue, bull_id, data_job_id (when read), source (hash,
//	                               stream, wait, paused, prioritized, delayed, scan),
//	                               seen (signal time), matched (hold confirmed), instance,
//	                               slot, link ("mysql/<instance>"). Start: SIGSTOP; End:
//	                               after kill and heal.
//	pause-trap        instance     as window-trap (no link), plus for (pause length).
//	                               Start: SIGSTOP; End: after resume and settle.
//	finalize-trap     instance     as window-trap, plus held_at and released (when the
//	                               COMMIT reached the proxy and went on), for (their
//	                               distance). Start: the hold armed (after the hit,
//	                               before the finalize); End: the COMMIT released.
//	window-trap-miss  instance     slot, reason, signals (creations seen while armed),
//	pause-trap-miss                not_held (of those, not the instance's), dropped
//	finalize-trap-miss             (signals lost to a full buffer); a finalize trap whose
//	                               hold caught no COMMIT has slot, reason, job. Start:
//	                               armed; End: given up.
//
// A landed trap's kill or pause fell after the add of an event the instance
// held and before that instance finalized it: at the match the event was
// still processing under its claim. A landing check counts window-trap
// records against the planned number (the scenario's "crashes" param).
// A landed finalize trap counts (history.LandFinalizeHeld) only when the
// history shows the instance's finalize of a claim inside its span and the
// claim's lease ending after that finalize and, by a poll interval and a
// quarter lease, before the release.
//
// # Clock skew
//
// Nemesis.SkewClock restarts one slot (SIGTERM when the adapter declares
// it graceful, else SIGKILL) with its wall clock off by an offset, through
// the mechanism the adapter declares (Capabilities.Clock, harness/clockskew:
// the supervisor adds LD_PRELOAD and FAKETIME, or FAKETIME alone for a Go
// binary built with the time.Now overlay, to that slot's process only), and
// after the hold restarts it with the true clock. Its fault record:
//
//	clock-skew        slot         offset ("-10s"), mechanism, for, instance (the
//	                               skewed instance's id). Start: after the skewed
//	                               start; End: before the restart with the true clock.
//
// A scenario needing it (NeedClockSkew), or the ordering promise
// (NeedOrdering), is skipped with the reason for an adapter without it.
//
// # Exit codes
//
// 0 pass, 1 violation, 2 unknown, 3 harness error (see ExitCode); several
// runs fold into the worst, a violation over an unknown (WorstExit). The
// verdict is check.Fold of the results and the scenario's Exercises: a run
// in which an invariant the scenario exists to exercise had nothing to check
// is unknown, never a pass.
package runner
