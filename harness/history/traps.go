package history

// The fault kinds of the harness's traps that the checkers read back from
// a run (the runner and the supervisor record them; check's landing
// requirements count them). One definition, so the two sides cannot drift.
const (
	// FaultWindowTrap: a kill between an add and its finalize, sprung by the
	// add's sighting in Redis. Params["job"] is the ai_jobs id and
	// Params[TrapSeen] when the Redis observer signalled its creation.
	FaultWindowTrap = "window-trap"
	// FaultFinalizeTrap: an instance's COMMIT held back from Start to End.
	FaultFinalizeTrap = "finalize-trap"
	// FaultNarrowColumn: the runner narrowed the outbox's last_error
	// column before the run (Params: table, column, width, statement); it
	// holds for the whole run, so Start and End are the setup's time.
	FaultNarrowColumn = "narrow-column"
	// TrapSeen is the window trap's param with the sighting's time (RFC 3339).
	TrapSeen = "seen"
)
