package mutants

import (
	"fmt"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"strings"
)

// Mutant is one broken dispatcher: the base with exactly one bug, the
// invariant that must catch it, and the scenario that catches it.
type Mutant struct {
	Name      string // the OUTBOXCHAOS_MUTANT value
	Bug       string // the one deviation from the base, and how it shows
	Invariant string // "I1".."I10"
	Scenario  string // the scenario whose run must fail that invariant
}

// Catalog returns every mutant, in a stable order.
func Catalog() []Mutant {
	return []Mutant{
		{names.BugSelectThenUpdate, "claims with a plain SELECT, then UPDATEs by id with no row lock and no status guard: two instances read the same pending rows and both take them", "I5", "contention"},
		{names.BugNoJobID, "adds without a custom jobId, so BullMQ names the job from its id counter (data is still {\"jobId\": id}): the re-add after a crash creates a second job", "I1", "crash-window"},
		{names.BugMarkBeforeEnqueue, "marks the event published and its job queued BEFORE the add: a crash in between (after-finalize-commit) leaves it published with no BullMQ job", "I3", "crash-points"},
		{names.BugNoLeaseRecovery, "never returns expired claims to pending: a dead instance's claims stay processing forever", "I8", "lease-expiry"},
		{names.BugUnfencedFinalize, "finalizes WHERE id IN (...) with no status or token guard: an owner paused past its lease overwrites the row another instance re-claimed and finalized", "I5", "zombie"},
		{names.BugRecoveryOverwritesFinalized, "recovery SELECTs expired ids, then UPDATEs them by id without checking the status again: a row its owner finalized in between goes back to pending", "I5", "zombie"},
		{names.BugPoisonAsTransient, "treats permanent failures (unknown type, missing job, queue not allowed, illegal jobId) as transient: back to pending with backoff until max attempts", "I4", "poison"},
		{names.BugNoBackoff, "returns a transient failure to pending with available_at = NOW(6): no backoff, retries as fast as it polls", "I6", "redis-outage"},
		{names.BugUnboundedAttempts, "never fails an event at max attempts: a transient failure is retried with backoff forever", "I7", "redis-outage"},
		{names.BugPushWithoutCheck, "adds by HSET and LPUSH with no existence check and no stream events: the re-add after a crash pushes the id on wait a second time", "I1", "crash-window"},
		{names.BugOverwriteJobData, "HSETs data and opts over a job that already exists (its data names the dispatching instance): the re-add after a crash rewrites the job", "I9", "crash-window"},
		{names.BugPublishedNotQueued, "marks the event published but never moves its job created -> queued", "I3", "crash-window"},
		{names.BugGlobalLock, "trusts a Redis dispatch lock (SET NX PX lease, token-checked release) as its only exclusion: no row locks, no per-row lease, no fenced finalize, and the holder adopts every processing row; a holder paused past the lock's TTL overlaps the next one and overwrites what it finalized", "I5", "zombie"},
		{names.BugAppClockLease, "takes locked_until from its own clock (time.Now() + lease, application time) instead of NOW(6) + lease: on an instance whose clock is behind by more than the lease every claim is over before it begins, and recovery hands its events to others while it still works on them", "I5", "clock-skew"},
		{names.BugOrderAfterBackoff, "its per-aggregate order guard counts an earlier event of the aggregate only while it is due: an event waiting out its backoff after a transient failure is overtaken by a later one of the same aggregate (MassTransit #3512, gruelbox/transaction-outbox #198)", "I10", "ordering"},
		{names.BugCursorClaim, "claims new rows only past a high-water mark (id > the highest id it claimed; retries with attempts > 0 by status): an id handed out before the mark but committed after it is below the cursor and never claimed", "I2", "commit-order-gaps"},
		{names.BugSQLErrorPermanent, "treats every SQL error as permanent: a finalize MySQL answers with a deadlock (1213) or a lock wait timeout (1205) fails the batch's events, valid ones included, instead of retrying", "I2", "lock-conflicts"},
		{names.BugMemoryOwnerRegistry, "keeps a registry of live instances in a MEMORY-engine table it creates (outbox_owners), each instance upserting its row before every claim, and its claim also adopts at once the processing rows of any owner missing from it (\"an unregistered owner is dead\"): a MySQL restart keeps the table and forgets its rows, so the first instance to claim after it takes the other instances' claims while their leases still run", "I5", "mysql-restart"},
		{names.BugMemoryOwnerRecovery, "keeps the same MEMORY-engine registry of live instances, each instance upserting its row at every lease-recovery round, and its recovery also resets to pending the processing rows of any owner missing from it: after a MySQL restart the first instance to recover resets the other instances' claims while their leases still run; a reset, not a claim, caught only because the history records who wrote each row", "I5", "mysql-restart"},
		{names.BugTransientAsPermanent, "treats any Redis error reply to an add as permanent: an add answered with a server-wide state (READONLY during a failover, LOADING after a restart, OOM at maxmemory) fails the event at once instead of retrying or waiting the state out", "I2", "transient-states"},
		{names.BugNoTimeoutsUnfenced, "waits on MySQL and Redis with no statement or command timeout (no deadline on a statement, no read timeout on Redis), and once a finalize it waited on fails (the link it hung on closed) writes the batch again by id with no status or token guard: on a half-open link it hangs holding its claims, others take them over after the lease, and when the link heals it overwrites what they finalized", "I5", "half-open"},
		{names.BugLocalZoneTimes, "writes locked_until and available_at from application time formatted as the process's local wall time (time.Now() + span, as text in its TZ) instead of NOW(6) + span: with the server in +07:00 and the process in America/New_York every lease it writes is twelve hours over before it begins and every backoff twelve hours in the past", "I5", "time-zones"},
		{names.BugUnfittedFailure, "writes last_error as it comes, not cut to the column nor made valid UTF-8, and takes a failure write the server refuses (Data too long, SQLSTATE 22001; an incorrect string value) for a transient error: the event goes back to pending with a short reason, and at the maximum attempts its failure is refused again, so it is retried for ever (macro-inc/macro #5886)", "I7", "failure-write"},
		{names.BugReadOnlyAsPermanent, "takes the store's read-only error (MySQL 1290, a failover's old primary or one not yet promoted) refused on its finalize for a verdict on the batch: once the store takes writes again it writes the batch's events failed, valid ones included, instead of leaving them to be retried", "I2", "transient-states"},
		{names.BugLeaseEndFence, "recognises the rows its finalize may write by locked_until equal to the lease end it computed at the claim (time.Now() + lease, to the microsecond), instead of by a token: where the column keeps whole seconds the server cut what it wrote, so the finalize finds none of its rows, they run out their lease, and each is claimed, added and left again until the run ends, never published", "I2", "whole-seconds"},
		{names.BugScriptLoadedOnce, "loads its add script into Redis once and from then on takes it to be there, as a client that caches its scripts' SHAs does: Redis keeps scripts in memory only, so once a restart has emptied its script cache every add meets NOSCRIPT, the reload is skipped, and the event is retried as a transient failure until it fails at the maximum attempts (Openpanel-dev/groupmq #16, gresrun/jesque #100)", "I2", "redis-loses-adds"},
		{names.BugWaitUnchecked, "declares durability: wait and ends each add batch with WAIT for a replica, but never reads WAIT's count: an add the replica did not get is taken for done and its event marked published, so when Redis restarts to what the replica held, the published event's job is gone (taskforcesh/bullmq #1046, the Redis Sentinel documentation on acknowledged writes)", "I3", "redis-loses-adds"},
	}
}

// Names lists the mutant names, in catalog order.
func Names() []string {
	var out []string
	for _, m := range Catalog() {
		out = append(out, m.Name)
	}
	return out
}

// Lookup returns the named mutant, or an error listing the names there are.
func Lookup(name string) (Mutant, error) {
	for _, m := range Catalog() {
		if m.Name == name {
			return m, nil
		}
	}
	return Mutant{}, fmt.Errorf("unknown mutant %q: use one of %s", name, strings.Join(Names(), ", "))
}

// blackBoxScenarios maps a mutant's scenario to the one its black-box run
// (BlackBoxSuffix) is caught in: the same scenario where its schedule takes
// another path for a dispatcher without crash points (the window trap
// instead of after-enqueue crashes; SIGKILL, SIGSTOP and a held COMMIT from
// outside instead of crash and sleep points), or queue-error, the failure
// every dispatcher meets, for the backoff and attempts mutants. crash-points
// needs crash points: its one mutant, mark-before-enqueue, goes to
// queue-error, where the add that fails after the event was marked
// published leaves it published with no job, as a crash between the two
// would. mysql-restart's second restart runs while the pause trap holds d1
// stopped with a claim, as its sleep at after-enqueue does with crash
// points. Of the network scenarios, which are the same for a black box,
// transient-states, half-open and time-zones are here, since their mutants
// are a black box's bugs as much as a white box's: half-open reaches the
// finalize from outside already (its network trap), and time-zones and
// whole-seconds kill from outside by the window trap. failure-write has no
// fault to place, and redis-loses-adds restarts Redis from outside already:
// their mutants run there as they are.
var blackBoxScenarios = map[string]string{
	"crash-window": "crash-window", "lease-expiry": "lease-expiry", "zombie": "zombie",
	"redis-outage": "queue-error", "crash-points": "queue-error", "mysql-restart": "mysql-restart",
	"transient-states": "transient-states", "half-open": "half-open",
	"time-zones": "time-zones", "failure-write": "failure-write", "whole-seconds": "whole-seconds",
	"redis-loses-adds": "redis-loses-adds",
}

// BlackBoxScenario is the scenario m's black-box run is caught in, and
// whether m has one (package scenarios runs every mutant that has).
func (m Mutant) BlackBoxScenario() (string, bool) {
	s, ok := blackBoxScenarios[m.Scenario]
	return s, ok
}
