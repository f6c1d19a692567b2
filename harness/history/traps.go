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
	// FaultPause: an instance SIGSTOPped from Start, SIGCONTed at End.
	FaultPause = "pause"
	// FaultPauseTrap: an instance SIGSTOPped when Redis showed an add of
	// an event it held, SIGCONTed at End.
	FaultPauseTrap = "pause-trap"
	// FaultNarrowColumn: the runner narrowed the outbox's last_error
	// column before the run (Params: table, column, width, statement); it
	// holds for the whole run, so Start and End are the setup's time.
	FaultNarrowColumn = "narrow-column"
	// FaultCoarsenColumns: the runner altered the outbox's lease and
	// backoff columns to whole seconds before the run (Params: table,
	// columns, statements); it holds for the whole run, as a narrowing.
	FaultCoarsenColumns = "coarsen-columns"
	// FaultStoreReadOnly: the window in which the harness held the
	// store's own server read-only (SET GLOBAL read_only = ON on MariaDB or
	// MySQL): the server itself refuses every write of an account without
	// READ_ONLY ADMIN with its 1290 error, as an old primary does during a
	// failover. The proxy's sql-read-only fault makes the same reply without
	// the server; this is the real state.
	FaultStoreReadOnly = "store-read-only"
	// FaultRedisMaxMemory: the window in which the harness held
	// its own Redis over its memory limit (CONFIG SET maxmemory 1 with
	// maxmemory-policy noeviction): the server itself refuses every command
	// that may grow memory, scripts included, with its -OOM error, while reads
	// and deletes work. The proxy's redis-state fault makes the same reply
	// without the server; this is the real state. A script is refused before
	// its first write or runs whole, so a refused add wrote nothing.
	FaultRedisMaxMemory = "redis-maxmemory"
	// FaultRedisUnpersisted: Redis's append-only file was off from Start
	// (CONFIG SET appendonly no, sent at Start) until the server was
	// SIGKILLed at End. A write Redis acknowledged before Start is on
	// disk; one acknowledged in between is gone once it restarts.
	FaultRedisUnpersisted = "redis-unpersisted"
	// FaultQuietRestart: a window around a Redis restart in which no
	// instance could reach Redis: every instance's Redis link was cut
	// before Start and healed after End; the observers flushed what Redis
	// had sent after Start, and were back, with every stream synced, before
	// End. A gap in Redis's observation recorded inside it hid nothing an
	// instance wrote.
	FaultQuietRestart = "quiet-restart"
	// TrapSeen is the window trap's param with the sighting's time (RFC 3339).
	TrapSeen = "seen"
)
