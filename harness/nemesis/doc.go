// Package nemesis is what a scenario's schedule drives: process signals,
// crash points, network faults, server restarts, and traps that catch a
// black-box dispatcher inside a window from outside. Scenarios are written
// against Nemesis (package scenarios); the runner builds one per run from
// the run's live resources (Config) and hands it to the scenario's Script
// during the load phase, and heals what is left open afterwards.
//
// Every action is recorded in the history as a fault window (faults.jsonl)
// with a start and an end; the checkers and the landing checks read them.
// All its randomness comes from Config.Seed (draws.go): Rand and Pick for
// schedule choices, and a failpoint seed per step key, so a seed replays
// the same draws whatever the scheduling of parallel steps.
//
// # Faults
//
// Fault records of the plain actions:
//
//	kind              target       params
//	kill              slot         down. Start: SIGKILL; End: restarted.
//	pause             slot         for. Start: SIGSTOP; End: after SIGCONT.
//	term              slot         timeout. Start: SIGTERM; End: restarted.
//	crash-point       slot         point, nth. Start: before the armed
//	                               restart; End: after the clean restart.
//	pause-at          slot         point, nth, for. Start: before the armed
//	                               restart; End: For plus Settle later.
//	<network kind>    dep or       the fault proxy's kind (latency, blackhole,
//	                  dep/instance lost-reply-redis-add, ...), as bound to the
//	                               run's sink and store (lost-reply-mysql-commit
//	                               is lost-reply-postgres-commit on a
//	                               PostgreSQL run); for, and the fault's own
//	                               parameters; fired (lost replies), refused
//	                               and answered (queue and SQL errors) at the
//	                               end. dep is the store ("mysql",
//	                               "postgres") or "redis".
//	server-restart    mysql|redis  down. Start: kill; End: started again.
//	store-read-only   mysql        mechanism, for, at_finalize_of. Start:
//	                               before SET GLOBAL read_only = ON; End:
//	                               after OFF.
//	redis-maxmemory   redis        mechanism, for. Start: before CONFIG SET
//	                               maxmemory 1 (noeviction); End: after the
//	                               server's own maxmemory and policy are back.
//	redis-unpersisted redis        mechanism, for. Start: before CONFIG SET
//	                               appendonly no; End: the SIGKILL of the
//	                               restart that follows (RestartRedisLosing).
//	quiet-restart     redis        down. Every instance's Redis link is cut
//	                               (a down fault on redis) from before Start
//	                               to after End; Start: before the observers
//	                               flush; End: after they are back and have
//	                               read every stream again.
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
// instance, its own claim. Without a locked_by column any job counts. An
// outbox without claims whose relays keep a cursor (states.cursor, MySQL
// or MariaDB) has nothing in a row to look up: the window and pause traps
// poll information_schema.INNODB_TRX every 120 ms instead (the server
// refreshes that table only when it was last read more than 100 ms ago)
// and match when two polls in a row find the same transaction of the slot's
// account
// running with row locks held (its turn) and a creation was signalled since
// the poll before the first of them (never counting the signals read
// before the arming's first poll: late ones of the round the previous trap
// cut); its job is "turn <trx id>". The landing is judged afterwards from
// the history alone. On a match:
//   - the window trap (CrashWindow, TrapCrashes) SIGSTOPs the instance,
//     blackholes its database link, SIGKILLs it, heals the link, restarts the
//     slot. TrapCrashes arms the instance running longest (a restarted one
//     may still be booting), re-arming until the planned count has landed
//     or its budget has passed, each re-arm on the next slot after the one
//     that missed (an instance may lose every SKIP LOCKED race to one that
//     polls just before it, for as long as their phases stay aligned; a try
//     gives up early once 40 creations in a row were none of its
//     instance's), and stops early when a try saw no job
//     created after earlier tries saw some (the workload is over; before
//     the first job, instances may still boot); it notes
//     "window_traps_landed" = "k/N" in the run's params.
//   - the pause trap (PauseTrap) SIGSTOPs the instance for a span past its
//     lease, SIGCONTs it, and waits a settle span; it re-arms until one pause
//     lands or its deadline passes. Its Pause.While runs while the instance
//     is stopped (mysql-restart restarts the server there).
//   - the finalize trap (FinalizeTrap) holds the instance's next COMMIT on
//     its database link (faultproxy's commit-hold-mysql, bound to the
//     store: commit-hold-postgres on PostgreSQL) for a span past its lease:
//     the finalize's statements ran, its row locks outlive the lease while
//     others recover and claim, as a pause at before-finalize-commit would. It re-arms until one hold lands (a COMMIT caught within
//     commitWait of the hit) or its deadline passes.
//   - the network trap (NetworkAtFinalize) adds a network fault (half-open)
//     to the instance's database link for a span: the instance holds its
//     claims, and its next statement, the finalize, meets the fault. It
//     re-arms until the fault is added or its deadline passes; the fault is
//     recorded as Network records it.
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
//	                               slot, link ("<store>/<slot>"). Start: SIGSTOP; End:
//	                               after kill and heal.
//	pause-trap        instance     as window-trap (no link), plus for (pause length).
//	                               Start: SIGSTOP; End: after resume and settle.
//	finalize-trap     instance     as window-trap, plus held_at and released (when the
//	                               COMMIT reached the proxy and went on), for (their
//	                               distance), cut = "true" when the connection ended
//	                               while the COMMIT was held (it never reached the
//	                               server: the finalize was rolled back). Start: the
//	                               hold armed (after the hit, before the finalize);
//	                               End: the COMMIT released.
//	window-trap-miss  instance     slot, reason, signals (creations seen while armed),
//	pause-trap-miss                not_held (of those, not the instance's), dropped
//	finalize-trap-miss             (signals lost to a full buffer); a finalize trap whose
//	network-trap-miss              hold caught no COMMIT has slot, reason, job. Start:
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
// The runner skips a scenario needing it (runner.NeedClockSkew) for an
// adapter without it, with the reason.
package nemesis
