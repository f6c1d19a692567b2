package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// commitOrderGaps holds one producer transaction in eight open for 0.4 to
// 3 s after its INSERTs (longer than a loaded dispatcher lags behind the
// newest row: 1.2-2.8 s seen with two Node.js instances on 2 cores):
// AUTO_INCREMENT hands the id out at the insert, the row becomes visible at
// the commit, so ids commit out of order and a
// dispatcher keeping a high-water mark ("id > the last id I handled")
// passes the late ones by for good. No fault: the gaps are the workload's.
// Reported against watermill-sql (ThreeDotsLabs/watermill #311),
// SQLStreamStore #121 and eugene-khyst/postgresql-event-sourcing.
func commitOrderGaps() runner.Scenario {
	s := base("commit-order-gaps", "one producer transaction in eight is held open 0.4-3 s after its insert, so ids commit out of order: an event committed behind a higher id must still be published (with AUTO_INCREMENT or a BIGSERIAL sequence alike: ids are handed out at the insert and seen at the commit; cursor relays close such gaps by waiting, a safety lag, or on PostgreSQL by xmin and pg_snapshot)", 2, 600)
	// A quarter of the first half's held events stay open until the last
	// event is sent: by then every instance has claimed past them, so a
	// high-water mark kept in any one of them has passed them.
	s.Hold = workload.Hold{Share: 0.125, Min: 400 * time.Millisecond, Max: 3 * time.Second, Late: 0.25}
	s.Params["hold"] = fmt.Sprintf("%g%% of events, %s-%s; %g%% of those in the first half until the load's end", s.Hold.Share*100, s.Hold.Min, s.Hold.Max, s.Hold.Late*100)
	s.Exercises = []string{"I2"}
	// A held event must commit after a higher id was claimed, or there was
	// no gap to fall into. One gap loses a cursor's event for good; five
	// are asked. A dispatcher whose claim waits for the open transactions
	// (a locking scan of the status index) never passes a held id and
	// meets fewer: its run is unknown, never a pass.
	s.Landing = []history.Requirement{{Fault: history.LandCommitGap, AtLeast: 5}}
	return s
}

// lockConflicts answers one instance's locking statements (its claims'
// SELECT ... FOR UPDATE and UPDATE, its finalizes' locking read and
// writes, its recoveries), one in ten, with InnoDB's deadlock (1213) or
// lock wait timeout (1205) error instead of running them, for 5 s: what a
// busy table answers (SKIP LOCKED claims on MySQL deadlock under load,
// rails/solid_queue #531). The dispatcher must retry; no event may end
// failed for it (I2), and nothing else may break.
func lockConflicts() runner.Scenario {
	s := base("lock-conflicts", "one instance's locking statements are answered, one in ten, with a deadlock or lock wait timeout (MySQL 1213, 1205; PostgreSQL 40P01, 55P03, or 40001 serialization failure) for 5 s: retried, never an event failed", 2, 600)
	s.Exercises = []string{"I2"}
	s.Landing = []history.Requirement{{Fault: history.LandSQLError, AtLeast: 5}}
	refused := faultproxy.SQLError{Probability: param(&s, "share", 0.1)}
	s.Script = after(500*time.Millisecond, func(ctx context.Context, n *nemesis.Nemesis) error {
		return n.Network(ctx, "mysql", "d1", refused, 5*time.Second)
	})
	return s
}

// mysqlRestart SIGKILLs the private MySQL server mid-load and starts it
// again on the same port with its data, twice: InnoDB crash recovery runs,
// every connection is cut mid-statement, claims and finalizes in flight are
// rolled back or not. The second time instance d1 is paused across the
// whole restart (asleep at after-enqueue with crash points, else
// SIGSTOPped by the pause trap once its add shows in Redis), so it wakes
// holding connections to a server that is gone and a claim
// whose finalize it has still to write, by then past its lease. Every
// valid event must end published, each job created once. The lease (5 s)
// is longer than a restart, as in production: the other instance's first
// claim after the server is back comes well inside d1's lease (the times
// measured are in docs/findings.md), so d1's claim is still unexpired
// then, and a dispatcher that takes claims over because the server forgot
// something it kept in memory (memory-owner-registry by a claim,
// memory-owner-recovery by a reset to pending written by another slot)
// does so inside the lease, where I5 sees it. Only the local environment can do this (NeedMySQLRestart); the others
// skip it with their reason.
func mysqlRestart() runner.Scenario {
	s := base("mysql-restart", "the outbox's database server (mysqld, or the postmaster for store: postgres) SIGKILLed and restarted on the same port with its data mid-load (crash recovery, connections cut mid-transaction), then again with d1 paused across it", 2, 800)
	s.Rate = 150
	s.Needs = []runner.Needs{runner.NeedMySQLRestart}
	lease := param(&s, "lease", 5*time.Second)
	s.Tuning.Lease = history.Duration(lease)
	down := param(&s, "down", time.Second)
	s.Script = after(time.Second, func(ctx context.Context, n *nemesis.Nemesis) error {
		// A dispatcher slow to boot (Node.js on a busy machine: 3 s seen)
		// has claimed nothing yet: the restart would find nothing in
		// flight. Wait until dispatching has begun.
		if _, err := n.WaitProgress(ctx, 0.05, 10*time.Second); err != nil {
			return err
		}
		if err := n.RestartServer(ctx, "mysql", down); err != nil {
			return err
		}
		if err := n.Sleep(ctx, 1500*time.Millisecond); err != nil {
			return err
		}
		// d1 stops before the kill and wakes after the server is back,
		// holding a claim whose job is added and whose finalize is still
		// to write, by then past its lease: with crash points, asleep at
		// after-enqueue; from outside, SIGSTOPped by the pause trap when
		// its add shows in Redis, the restart run while it is stopped.
		restart := func(ctx context.Context) error { return n.RestartServer(ctx, "mysql", down) }
		if !n.HasCrashPoints() {
			return restartWhilePaused(ctx, n, lease, restart)
		}
		pause := nemesis.Pause{Slot: "d1", Point: contract.AfterEnqueue, OnHit: 1, For: lease + 1500*time.Millisecond, Settle: time.Second}
		return both(ctx, func(ctx context.Context) error { return n.PauseAt(ctx, pause) }, func(ctx context.Context) error {
			// the re-armed d1 starts and reaches its first add
			if err := n.Sleep(ctx, 1200*time.Millisecond); err != nil {
				return err
			}
			return restart(ctx)
		})
	})
	// The restarts must hold an event up: a claim cut by one, a transient
	// failure inside one, or an event produced inside one and claimed only
	// after it (the producer itself waits the restart out, so it is mostly
	// the first two; a dispatcher whose claims are short meets few).
	s.Landing = []history.Requirement{{Fault: history.LandOutageStalled, Target: "mysql", AtLeast: 1}}
	return s
}

// restartWhilePaused is mysql-restart's second restart for a black box: the
// pause trap stops d1 holding a claim with its add done, and the restart
// runs while it is stopped (a little after the stop, as with crash points:
// the other instance is mid-round when the server goes). When no pause
// lands within 10 s, d1 is SIGSTOPped wherever it is and the server
// restarted half a second later, so the second restart still happens.
func restartWhilePaused(ctx context.Context, n *nemesis.Nemesis, lease time.Duration, restart func(context.Context) error) error {
	trap := nemesis.Pause{Slot: "d1", For: lease + 2*time.Second, Settle: time.Second, While: func(ctx context.Context) error {
		if err := n.Sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
		return restart(ctx)
	}}
	landed, err := n.PauseTrap(ctx, trap, 10*time.Second)
	if err != nil || landed {
		return err
	}
	return both(ctx, func(ctx context.Context) error { return n.Pause(ctx, "d1", trap.For) }, func(ctx context.Context) error {
		if err := n.Sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
		return restart(ctx)
	})
}

// transientStates puts Redis, for every instance, into three server-wide
// states in turn, 1.5 s each with 1 s between: a replica during a failover
// (READONLY), a restart reloading its data (LOADING) and maxmemory with
// noeviction (OOM), each answering every write (the adds) with the
// server's own error reply (jobrunr/jobrunr #1264, immich-app/immich
// #17600, OptimalBits/bull #416, redis/go-redis #1131, redis/ioredis
// #1015). Then, where Redis is the harness's own, the real OOM for 1.5 s:
// the server itself over its memory limit (CONFIG SET maxmemory 1,
// noeviction) refuses every write, the harness's consumer's and list
// archiver's included, which retry it out. Then, still inside the load
// (1650 events at 100/s), the store is
// read-only for 2.5 s twice (a failover's old primary, or one not yet
// promoted). First, where the store is the harness's own MySQL server, the
// server itself: SET GLOBAL read_only = ON the moment Redis shows the add
// of an event an instance holds, so that its finalize is refused (the
// slots' accounts get the real 1290; the harness's root writes on). Then,
// 1 s later, on every store, the sql-read-only fault answers every
// instance's write (claims, finalizes) with MySQL's 1290 (--read-only,
// super_read_only) or PostgreSQL's 25006 (read_only_sql_transaction); the
// producer's link is not touched. Each state passes: no valid event may
// end failed for it (I2). A dispatcher should spend no attempt on the
// server's state (the reference gives such events back); one that does is
// not failed for it here, as long as it does not run out of attempts.
// MaxAttempts is raised to 14, so that the Redis states cannot exhaust a
// backoff that grows: from the first state's start to the real OOM's end
// is 9 s, and 13 delays of the default tuning (100 ms doubling up to 2 s),
// even jittered down to half, add up to 9.55 s.
func transientStates() runner.Scenario {
	s := base("transient-states", "Redis answers every write with READONLY (a failover), then LOADING (a restart), then OOM (maxmemory, noeviction), 1.5 s each; then the harness's own Redis is held over its memory limit for 1.5 s (CONFIG SET maxmemory 1: the server's own OOM); then, on the harness's own MySQL server, the server itself is read-only for 2.5 s from an instance's add on (SET GLOBAL read_only: its finalize is refused); then the store answers every write with its read-only error (MySQL 1290, PostgreSQL 25006) for 2.5 s: transient server states, retried or waited out, never an event failed", 2, 1650)
	s.Rate = 100
	s.Tuning.MaxAttempts = 14
	// A lease longer than a read-only phase: a claim whose finalize the
	// server refused is still its owner's when the phase ends, so what the
	// owner does next (give it back, or take the refusal for a verdict and
	// fail it) is its own, not lease recovery's.
	s.Tuning.Lease = history.Duration(4 * time.Second)
	s.Exercises = []string{"I2"}
	s.Landing = []history.Requirement{
		{Fault: history.LandServerState, AtLeast: 5},
		{Fault: history.LandStoreReadOnly, AtLeast: 3},
	}
	each := param(&s, "each", 1500*time.Millisecond)
	readOnly := param(&s, "read_only", 2500*time.Millisecond)
	s.Script = after(500*time.Millisecond, func(ctx context.Context, n *nemesis.Nemesis) error {
		for _, state := range []string{faultproxy.RedisReadOnly, faultproxy.RedisLoading, faultproxy.RedisOOM} {
			if err := n.Network(ctx, "redis", "", faultproxy.RedisState{State: state}, each); err != nil {
				return err
			}
			if err := n.Sleep(ctx, time.Second); err != nil {
				return err
			}
		}
		if err := redisOutOfMemory(ctx, n, each); err != nil {
			return err
		}
		if err := serverReadOnly(ctx, n, readOnly); err != nil {
			return err
		}
		return n.Network(ctx, "mysql", "", faultproxy.SQLReadOnly{}, readOnly)
	})
	return s
}

// redisOutOfMemory is transient-states' real OOM phase, where Redis is the
// harness's own, then a second's pause; elsewhere a note says why it did
// not run.
func redisOutOfMemory(ctx context.Context, n *nemesis.Nemesis, d time.Duration) error {
	if !n.CanFillRedis() {
		n.Note("redis_maxmemory", "not run: Redis is not the harness's own server, and it is not reconfigured")
		return nil
	}
	if err := n.RedisOutOfMemory(ctx, d); err != nil {
		return err
	}
	return n.Sleep(ctx, time.Second)
}

// serverReadOnly is transient-states' real read-only phase, where the
// environment allows it, then a second's pause; elsewhere a note says why
// it did not run.
func serverReadOnly(ctx context.Context, n *nemesis.Nemesis, d time.Duration) error {
	if !n.CanSetStoreReadOnly() {
		n.Note("server_read_only", "not run: the store is not the harness's own MySQL server with an account per slot")
		return nil
	}
	set, err := n.StoreReadOnlyAtFinalize(ctx, d, 3*time.Second)
	if err != nil {
		return err
	}
	if !set {
		n.Note("server_read_only", "not run: no instance's add showed up within 3 s")
		return nil
	}
	return n.Sleep(ctx, time.Second)
}

// halfOpen holds links half-open: they take every byte and answer nothing,
// and close nothing, so a client without timeouts waits for ever
// (go-sql-driver/mysql #194, sidorares/node-mysql2 #4458, redis/ioredis
// #2193, activepieces/activepieces #14626, reproduced there with a
// freezing TCP proxy). Two rounds, 1 s apart, each holding one instance's
// store link and another instance's Redis link at once for 3.5 s, the
// third instance free to recover: in the first the connections in use
// stay open and the statement or command in flight is held; in the second
// the open connections are closed and each new connection's handshake is
// held. A store link is held from the moment Redis shows the add of an
// event its instance holds (the network trap, nemesis.NetworkAtFinalize),
// so the statement held is the finalize of claims it holds; a Redis link
// holds the add of the next batch its instance claims. A dispatcher whose
// owner is stuck holding claims must have them taken over by lease
// recovery (I8), must fence the stuck owner out when the link heals and
// it wakes (I5), and each job is created once (I1).
func halfOpen() runner.Scenario {
	s := base("half-open", "links that take every byte and never answer nor close, one instance's store link (from its add on, so its finalize is held) and another's Redis link at once, 3.5 s, twice: first the connections in use (a statement or command in flight is held), then new connections only (each handshake is held); lease recovery takes the stuck owners' claims over, and they are fenced out when they wake", 3, 900)
	s.Rate = 100
	// A held Redis link fails adds for the hold and the reconnect after it;
	// a dispatcher that counts each as an attempt (default backoffs: 1.55 s
	// at least for 6) must not run out of them: with 10 the backoffs alone
	// are 5.5 s at least, longer than a hold and a reconnect.
	s.Tuning.MaxAttempts = 10
	s.Exercises = []string{"I1", "I5", "I8"}
	hold := param(&s, "hold", 3500*time.Millisecond)
	s.Landing = []history.Requirement{{Fault: history.LandHalfOpen, AtLeast: 1, Planned: 4}}
	s.Script = after(500*time.Millisecond, func(ctx context.Context, n *nemesis.Nemesis) error {
		slots := n.Slots()
		if len(slots) < 3 {
			return fmt.Errorf("half-open needs 3 instances (two held, one to recover), got %d", len(slots))
		}
		round := func(store, redis string, handshake bool) error {
			f := faultproxy.HalfOpen{Handshake: handshake}
			return both(ctx,
				func(ctx context.Context) error {
					_, err := n.NetworkAtFinalize(ctx, store, f, hold, 3*time.Second)
					return err
				},
				func(ctx context.Context) error { return n.Network(ctx, "redis", redis, f, hold) })
		}
		if err := round(slots[0], slots[1], false); err != nil {
			return err
		}
		if err := n.Sleep(ctx, time.Second); err != nil {
			return err
		}
		return round(slots[1], slots[2], true)
	})
	return s
}

// timeZones runs the store's server in +07:00 (its global time_zone for
// the run) and the instances with TZ=America/New_York (-05:00 in winter,
// -04:00 in summer): leases and backoffs written from application time,
// formatted in the process's zone or in UTC, land hours off the server's
// NOW(6) (ThreeDotsLabs/watermill #631, fixed by watermill-sql #53;
// BrighterCommand/Brighter #2194; sidorares/node-mysql2 #658). The
// history records UTC whatever the sessions' zone (package observe), so
// I5 (a lease already over when it is claimed), I6 (a backoff in the
// past) and I8 (recovery judged against the harness's record of the kill)
// judge them on the database clock. The last queue is broken for 1.5 s
// so that transient failures write backoffs, and one instance is killed
// holding a claim so that a lease is recovered.
func timeZones() runner.Scenario {
	s := base("time-zones", "the store's server in +07:00 and the instances in America/New_York: leases and backoffs must be written on the database clock (NOW(6)), not from application time in the process's zone; a queue broken for 1.5 s writes backoffs, and an instance killed holding a claim has its lease recovered", 2, 400)
	s.Needs = []runner.Needs{runner.NeedServerZone}
	s.Zones = runner.Zones{Server: param(&s, "server_zone", "+07:00"), Process: param(&s, "process_tz", "America/New_York")}
	s.Tuning.MaxAttempts = 10 // the break cannot exhaust the attempts: every valid event ends published
	s.Exercises = []string{"I5", "I6", "I8"}
	s.Landing = []history.Requirement{
		{Fault: history.LandZoneLease, AtLeast: 50},
		{Fault: history.LandZoneBackoff, AtLeast: 3},
		{Fault: history.LandDeadOwner, AtLeast: 1},
	}
	broken := param(&s, "broken_for", 1500*time.Millisecond)
	s.Script = after(500*time.Millisecond, breakAndKillHolding(broken))
	return s
}

// wholeSeconds alters the outbox's lease and backoff columns to whole
// seconds (DATETIME(0), TIMESTAMP(0); PostgreSQL timestamp(0)), keeping
// their type, nullability and default, as many outboxes declare them
// (a plain DATETIME keeps no fraction). MariaDB cuts a fraction written
// there ('23:59:59.5' is stored 23:59:59), MySQL and PostgreSQL round it
// (to the next second, day and year), so a lease end or a backoff reads
// back up to a second off what the dispatcher computed; NOW() keeps
// whole seconds too. The checkers read the precision from the server's
// catalog and allow a step wherever they compare such a time, so a
// correct dispatcher passes; backoffs here start at 2 s so that they are
// still told from none. The last queue is broken for 3 s, long enough
// that events fail twice, and one instance is killed holding a claim, so
// that a lease is recovered. A dispatcher that recognises its rows by the
// lease end it computed instead of by a token never finds them again
// (mutant lease-end-fence, I2). Sources: ThreeDotsLabs/watermill #631
// (times compared across the application and the database), the MySQL
// and MariaDB manuals on fractional seconds (rounding, and MariaDB's
// TIME_ROUND_FRACTIONAL).
func wholeSeconds() runner.Scenario {
	s := base("whole-seconds", "the outbox's lease and backoff columns altered to whole seconds (DATETIME(0): MariaDB cuts a fraction, MySQL and PostgreSQL round it): leases and backoffs read back up to a second off what was written; a queue broken for 3 s writes backoffs from 2 s up, and an instance killed holding a claim has its lease recovered", 2, 400)
	s.WholeSeconds = true
	s.Params["time_columns"] = "whole seconds"
	s.Needs = []runner.Needs{runner.NeedTimeColumns}
	s.Tuning.BackoffBase = history.Duration(2 * time.Second)
	s.Tuning.BackoffMax = history.Duration(8 * time.Second)
	s.Tuning.Lease = history.Duration(3 * time.Second)
	s.Tuning.MaxAttempts = 10 // the break cannot exhaust the attempts: every valid event ends published
	s.Exercises = []string{"I5", "I6", "I8"}
	s.Landing = []history.Requirement{
		{Fault: history.LandWholeSeconds, AtLeast: 50},
		{Fault: history.LandDeadOwner, AtLeast: 1},
	}
	broken := param(&s, "broken_for", 3*time.Second)
	s.Script = after(500*time.Millisecond, breakAndKillHolding(broken))
	return s
}

// breakAndKillHolding breaks the last queue for broken, so that transient
// failures write backoffs, and meanwhile kills one instance holding a
// claim (a crash point after the claim; a black box by the window trap),
// so that a lease is recovered: time-zones' and whole-seconds' schedule.
func breakAndKillHolding(broken time.Duration) script {
	return func(ctx context.Context, n *nemesis.Nemesis) error {
		return both(ctx,
			func(ctx context.Context) error { return breakLastQueue(broken)(ctx, n) },
			func(ctx context.Context) error {
				if !n.HasCrashPoints() {
					_, err := n.TrapCrashes(ctx, 1, 5*time.Second, 15*time.Second)
					return err
				}
				return crashAny(ctx, n, contract.AfterClaim, 2)
			})
	}
}

// failureWrite narrows last_error to VARCHAR(48) (a table's own column, not
// the contract's 1024) and mixes in poison events whose failure is hard to
// write: queue-not-allowed events whose queue name is 64 characters long,
// in ASCII (long-error) or in characters of two, three and four bytes
// (multibyte-error). A reason that quotes the name is longer than the
// column, so under strict SQL mode the failure write is refused ("Data
// too long", SQLSTATE 22001; PostgreSQL: value too long, 22001), and a
// reason cut by bytes ends in half a character, refused as an incorrect
// string value. Every other event's reason may not fit either. Reported
// against macro-inc/macro #5886 (22001 retried forever), postalserver/postal
// #948 and #1687, and nestjs/outbox's 0.1.2 release notes (#22, #26, #28).
// Each such event must still end failed (I4), with no endless retry (I7),
// and the events behind it must still be published (I2).
func failureWrite() runner.Scenario {
	s := base("failure-write", "last_error narrowed to VARCHAR(48) and poison events whose queue name (64 characters, ASCII or of 2-4 bytes each) a reason may quote: a failure text written as it comes is refused (Data too long, 22001; or half a character when cut by bytes); each must still end failed, not retried for ever, and not hold up the events behind it", 2, 300)
	s.Rate = 100
	s.Mix = workload.Mix{Valid: 80, UnknownType: 2, MissingJob: 2, QueueDenied: 2, IllegalJobID: 2, AlreadyQueued: 2, LongError: 5, MultibyteError: 5}
	s.LastErrorWidth = 48
	s.Params["last_error"] = "VARCHAR(48)"
	s.Needs = []runner.Needs{runner.NeedLastError}
	// I4 only: an outbox that cannot express poison (no jobs table, no
	// failed state) has nothing here to exercise, and the scenario is
	// skipped for it. I2 is judged all the same.
	s.Exercises = []string{"I4"}
	s.Landing = []history.Requirement{{Fault: history.LandFailureWrite, AtLeast: 2, Planned: 2}}
	return s
}

// redisLosesAdds has Redis acknowledge adds it then loses (taskforcesh/bullmq
// #1046 and #2737, MarkUsProject/Markus #7961, the Redis Sentinel docs on
// acknowledged writes lost in a failover): 1 s into the load its
// append-only file is turned off for 1.5 s, as a server whose disk lags
// behind; then it is SIGKILLed and restarted from the file as it was. Jobs
// acknowledged meanwhile, and marked published, are gone. That is Redis's
// doing, not the dispatcher's: the checkers attribute each such job to the
// environment (lost-adds on the report) and judge the rest as ever. The
// restart is quiet (nemesis.RestartRedisLosing): every instance's Redis
// link is cut around it, so the observers see every add before it and
// lose sight of nothing an instance wrote. It lands when at least one
// acknowledged add was lost. The load (800 events at 200/s) goes on for
// about a second after the restart, so that every instance adds after it:
// script-loaded-once, which never loads its add script again, is caught
// there (I2). For an adapter that declares durability: wait the
// environment runs a replica, which stops following first: a published
// job lost is then the dispatcher's (I3), as wait-unchecked shows.
func redisLosesAdds() runner.Scenario {
	s := base("redis-loses-adds", "Redis stops writing its append-only file for 1.5 s mid-load, then is SIGKILLed and restarted from it: the adds it acknowledged meanwhile are gone, which the report attributes to Redis", 2, 800)
	s.Needs = []runner.Needs{runner.NeedServerCtl}
	// No worker takes the jobs: what Redis loses is a backlog nobody took,
	// so each lost job of a published event is work that no worker will do.
	// A job a worker took was handed over, and an event may then close as
	// already dispatched with no add, as the contract says.
	s.Consumer = false
	unpersisted := param(&s, "unpersisted", 1500*time.Millisecond)
	s.Script = after(time.Second, func(ctx context.Context, n *nemesis.Nemesis) error {
		// A dispatcher slow to boot (Node.js on a busy machine) would add
		// nothing inside the window: wait until dispatching has begun.
		if _, err := n.WaitProgress(ctx, 0.05, 10*time.Second); err != nil {
			return err
		}
		return n.RestartRedisLosing(ctx, unpersisted, 500*time.Millisecond)
	})
	s.Landing = []history.Requirement{{Fault: history.LandLostAdds, AtLeast: 1}}
	return s
}
