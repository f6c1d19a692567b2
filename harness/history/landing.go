package history

// Landing requirements: what must happen in a run for its verdict to count,
// as Antithesis "sometimes" assertions and etcd's failpoints that must
// trigger. A scenario states them; they are recorded in Meta.Landing so a
// stored run can be judged again; package check counts, from the recorded
// history alone, how many times each fault landed.
const (
	// LandCrashWindow: an instance died (SIGKILL or a crash) while it held
	// a claim whose job was already created in Redis and whose finalize
	// was not yet written. For an outbox without claims (a cursor): a death
	// after a message's publish, before the outbox said it published, and
	// followed by its publish again.
	LandCrashWindow = "crash-window"
	// LandZombie: an instance was paused (SIGSTOP, or a sleep at a crash
	// point: the pause-at fault's window) while the lease of a claim it held ran out, with the job
	// already created and the finalize not yet written.
	LandZombie = "zombie"
	// LandFinalizeHeld: an instance's finalize of a claim ran while the
	// harness held the transaction's COMMIT back (the finalize trap), and
	// the claim's lease ran out before the COMMIT went on: the finalize's
	// row locks were held across its lease end, where a recovery or a
	// claim by id meets them. It counts when the COMMIT stayed held a
	// poll interval and a quarter lease past the lease end, or when the
	// connection ended while the COMMIT was held, before the claim's lease
	// end, so the database rolled the finalize back before any recovery
	// could meet it (check.heldFinalizes).
	LandFinalizeHeld = "finalize-held"
	// LandDeadOwner: an instance died holding a claim that was not closed
	// before its lease ran out (an expired claim of a dead owner).
	LandDeadOwner = "dead-owner"
	// LandLostReply: a lost-reply fault dropped the reply of a request that
	// reached the server.
	LandLostReply = "lost-reply"
	// LandOutageFailed: an event met a transient failure inside an outage
	// of Target ("redis", "mysql"): down, blackhole or a server restart.
	LandOutageFailed = "outage-failed"
	// LandOutageStalled: an event met a transient failure inside an outage
	// of Target, a claim held across its start outlived it, or an event
	// produced inside it was first claimed only after it. Without claims:
	// an event produced before its end (by two polls) and still unpublished
	// when it ended.
	LandOutageStalled = "outage-stalled"
	// LandQueueError: Redis answered an add to the broken queue with the
	// queue-error fault's error reply.
	LandQueueError = "queue-error"
	// LandClockSkew: an instance claimed events while the harness held its
	// wall clock skewed (a clock-skew fault window naming the instance).
	LandClockSkew = "clock-skew"
	// LandOrderRetry: an event of an aggregate met a transient failure
	// while a later event of its aggregate was already committed: a chance
	// for the later one to overtake it.
	LandOrderRetry = "order-retry"
	// LandCommitGap: an event whose transaction the producer held open
	// sent its COMMIT after an event with a higher id had been claimed, so
	// the lower id became visible behind the higher one.
	LandCommitGap = "commit-gap"
	// LandSQLError: MySQL's answer to a locking statement was replaced by
	// the sql-error fault's deadlock or lock wait timeout error packet.
	LandSQLError = "sql-error"
	// LandServerState: Redis answered a dispatcher's write with the
	// redis-state fault's READONLY, LOADING or OOM reply, or the harness's
	// own Redis, held over its memory limit, refused it with -OOM.
	LandServerState = "server-state"
	// LandLostAdds: a job whose add Redis acknowledged while its
	// append-only file was off (FaultRedisUnpersisted) was gone once Redis
	// restarted: Redis lost it.
	LandLostAdds = "lost-adds"
	// LandStoreReadOnly: the store answered a dispatcher's write with the
	// sql-read-only fault's read-only error (MySQL 1290, PostgreSQL 25006).
	LandStoreReadOnly = "store-read-only"
	// LandHalfOpen: a half-open fault on an instance's own link (its
	// store's or its Redis's) held something of it (a statement or command
	// in flight, or a new connection's handshake: the fault's held and
	// handshakes counts), and meanwhile a claim of that instance ran out
	// its lease unfinished and was taken over, or recovered, by another
	// instance before the fault ended. An outbox without leases has no
	// claim to run out: there the fault landed when it held something of
	// the instance.
	LandHalfOpen = "half-open"
	// LandZoneLease: a claim wrote a lease end (locked_until) while the
	// store's server and the instances ran in different time zones
	// (Meta.Zones, as the harness applied them).
	LandZoneLease = "zone-lease"
	// LandZoneBackoff: a transient failure wrote a backoff (a return to
	// pending with available_at in the future) while the zones differed.
	LandZoneBackoff = "zone-backoff"
	// LandFailureWrite: the run narrowed last_error (a narrow-column fault)
	// below the texts that quote an event's long field, and an event of a
	// failure-write kind (long-error, multibyte-error) ended failed, its
	// last write recorded by the triggers. It counts the kinds for which
	// one did, so AtLeast 2 asks for both.
	LandFailureWrite = "failure-write"
	// LandWholeSeconds: a claim wrote a lease end, or a transient failure
	// a backoff, into a column the run had coarsened to whole seconds
	// (Model.Precision 0, a coarsen-column fault).
	LandWholeSeconds = "whole-seconds"
)

// Requirement is one landing requirement of a scenario.
type Requirement struct {
	Fault   string `json:"fault"`             // one of the Land* kinds
	Target  string `json:"target,omitempty"`  // the dependency of an outage
	AtLeast int    `json:"at_least"`          // landings needed
	Planned int    `json:"planned,omitempty"` // how many the schedule tries, when it counts them
	// BlackBox: only for a dispatcher without crash points, where the
	// schedule reaches this window from outside; with crash points it
	// places the fault at a crash point instead.
	BlackBox bool `json:"black_box,omitempty"`
}

// LandingFor is the requirements a run states: all of reqs, less those
// meant only for black boxes when the dispatcher has crash points.
func LandingFor(reqs []Requirement, crashPoints bool) []Requirement {
	out := make([]Requirement, 0, len(reqs))
	for _, r := range reqs {
		if !r.BlackBox || !crashPoints {
			out = append(out, r)
		}
	}
	return out
}
