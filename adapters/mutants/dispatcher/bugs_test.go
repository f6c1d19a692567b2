package dispatcher

import (
	"context"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

// Each test shows one bug's deviation at the SQL or Redis level, next to the
// base doing the same steps correctly.

// claimBoth forces the interleaving "A reads, B reads, A writes and commits,
// B writes and commits" between two instances' claims of the same row, and
// returns how many events each one believes it holds.
func claimBoth(t *testing.T, e *env, bug string) (int, int) {
	ctx := context.Background()
	a, b := e.dispatcher(e.config("a", bug)), e.dispatcher(e.config("b", bug))
	txA, err := e.db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer txA.Rollback()
	txB, err := e.db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer txB.Rollback()
	locked := a.flow.claim == claimSkipLocked
	evA, err := a.selectDue(ctx, txA, locked)
	require.NoError(t, err)
	evB, err := b.selectDue(ctx, txB, locked)
	require.NoError(t, err)
	for _, c := range []struct {
		d      *Dispatcher
		tx     interface{ Commit() error }
		events []event
		token  string
	}{{a, txA, evA, "token-a"}, {b, txB, evB, "token-b"}} {
		if len(c.events) > 0 {
			require.NoError(t, c.d.markClaimed(ctx, c.tx.(querier), &batch{token: c.token, events: c.events}, locked))
		}
		require.NoError(t, c.tx.Commit())
	}
	return len(evA), len(evB)
}

func TestSelectThenUpdateLetsTwoInstancesClaimOneRow(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-a")
	nA, nB := claimBoth(t, e, names.BugSelectThenUpdate)
	require.Equal(t, []int{1, 1}, []int{nA, nB}, "both instances believe they hold the event")
	r := e.row(id)
	require.Equal(t, "b", r.LockedBy)
	require.Equal(t, "token-b", r.Token, "B's claim overwrote A's unexpired claim")
	require.Equal(t, 2, r.Attempts)
	require.Equal(t, []string{"pending->processing", "processing->processing"}, e.transitions(id))

	base := newEnv(t)
	id = base.addValid("job-a")
	nA, nB = claimBoth(t, base, "")
	require.Equal(t, []int{1, 0}, []int{nA, nB}, "SKIP LOCKED: B skips the row A holds")
	require.Equal(t, "token-a", base.row(id).Token)
}

func TestNoJobIDCreatesANumberedJobPerAdd(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-a")
	d := e.dispatcher(e.config("d1", names.BugNoJobID))
	require.Equal(t, 1, e.poll(d))
	e.rewind(id, "job-a") // crashed before the finalize, recovered
	require.Equal(t, 1, e.poll(d))
	require.Equal(t, []string{"2", "1"}, e.list("bull:"+queueA+":wait"), "BullMQ's counter named both jobs")
	for _, n := range []string{"1", "2"} {
		require.Equal(t, `{"jobId":"job-a"}`, e.hash("bull:" + queueA + ":" + n)["data"])
	}
	require.Empty(t, e.hash("bull:"+queueA+":job-a"), "no job under the custom id")
	require.Equal(t, []string{"added", "waiting", "added", "waiting"}, e.streamEvents(queueA))

	base := newEnv(t)
	id = base.addValid("job-a")
	d = base.dispatcher(base.config("d1", ""))
	base.poll(d)
	base.rewind(id, "job-a")
	base.poll(d)
	require.Equal(t, []string{"job-a"}, base.list("bull:"+queueA+":wait"), "the re-add is a no-op")
	require.Equal(t, []string{"added", "waiting", "duplicated"}, base.streamEvents(queueA))
}

func TestMarkBeforeEnqueuePublishesBeforeTheJobExists(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-a")
	var log crashLog
	var atCommit string
	log.onCrash = func() {
		if p := log.points(); p[len(p)-1] == "after-finalize-commit" {
			atCommit = e.row(id).Status + "/" + e.JobStatus("job-a") + "/" + boolWord(len(e.hash("bull:"+queueA+":job-a")) > 0)
		}
	}
	d := e.dispatcher(e.config("d1", names.BugMarkBeforeEnqueue),
		log.set(t, "after-claim=crash;after-enqueue=crash;before-finalize-commit=crash;after-finalize-commit=crash"))
	require.Equal(t, 1, e.poll(d))
	require.Equal(t, []string{"after-claim", "before-finalize-commit", "after-finalize-commit", "after-enqueue"}, log.points())
	require.Equal(t, "published/queued/no-job", atCommit, "a crash here leaves a published event with no BullMQ job")

	// With Redis down the add fails after the event is already published.
	down := newEnv(t)
	id = down.addValid("job-b")
	require.Equal(t, 1, down.poll(down.dispatcher(down.config("d1", names.BugMarkBeforeEnqueue), down.downRedis())))
	require.Equal(t, "published", down.row(id).Status)
	require.Equal(t, "queued", down.JobStatus("job-b"))
}

func boolWord(job bool) string {
	if job {
		return "job"
	}
	return "no-job"
}

// deadClaim makes an event look claimed by an instance that died a second
// after its lease ran out.
func deadClaim(t *testing.T, e *env, id int64) {
	_, err := e.db.Exec(`UPDATE outbox_events SET status = 'processing', locked_by = 'dead', lock_token = 'token-dead',
		locked_until = NOW(6) - INTERVAL 1 SECOND, attempts = 1 WHERE id = ?`, id)
	require.NoError(t, err)
}

func TestNoLeaseRecoveryLeavesADeadClaimForever(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-a")
	deadClaim(t, e, id)
	d := e.dispatcher(e.config("d1", names.BugNoLeaseRecovery))
	require.Zero(t, e.poll(d))
	n, err := d.recoverExpired(context.Background())
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, "dead", e.row(id).LockedBy)

	base := newEnv(t)
	id = base.addValid("job-a")
	deadClaim(t, base, id)
	require.Equal(t, 1, base.poll(base.dispatcher(base.config("d1", ""))), "recovered, then claimed and published")
	require.Equal(t, "published", base.row(id).Status)
}

// takeOver makes b's claim replace a's expired one, as a recovery and a
// new claim by b would.
func takeOver(t *testing.T, e *env, id int64) {
	_, err := e.db.Exec(`UPDATE outbox_events SET locked_by = 'b', lock_token = 'token-b',
		locked_until = NOW(6) + INTERVAL 10 SECOND, attempts = attempts + 1 WHERE id = ?`, id)
	require.NoError(t, err)
}

func TestUnfencedFinalizeOverwritesAReclaimedRow(t *testing.T) {
	for _, c := range []struct{ bug, want string }{{names.BugUnfencedFinalize, "published"}, {"", "processing"}} {
		e := newEnv(t)
		id := e.addValid("job-a")
		a := e.dispatcher(e.config("a", c.bug))
		b, err := a.claim(context.Background())
		require.NoError(t, err)
		takeOver(t, e, id) // a paused past its lease; b took the event
		require.NoError(t, a.finalize(context.Background(), b, []fate{publish(howAdded)}))
		r := e.row(id)
		require.Equal(t, c.want, r.Status, "bug %q", c.bug)
		require.Equal(t, "token-b", r.Token)
	}
}

func TestRecoveryOverwritesFinalizedResetsAPublishedRow(t *testing.T) {
	// Read, then the owner finalizes, then the reset by id.
	e := newEnv(t)
	id := e.addValid("job-a")
	owner := e.dispatcher(e.config("d1", names.BugRecoveryOverwritesFinalized))
	rec := e.dispatcher(e.config("d2", names.BugRecoveryOverwritesFinalized))
	b, err := owner.claim(context.Background())
	require.NoError(t, err)
	e.expire(id)
	ids, err := rec.selectExpired(context.Background())
	require.NoError(t, err)
	require.Equal(t, []int64{id}, ids)
	require.NoError(t, owner.finalize(context.Background(), b, []fate{publish(howAdded)}))
	n, err := rec.resetByID(context.Background(), ids)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "pending", e.row(id).Status, "a published event went back to pending")
	require.Equal(t, []string{"pending->processing", "processing->processing", "processing->published", "published->pending"}, e.transitions(id))

	// The same while the owner's finalize holds the row: the recovery read
	// it as expired, waits for the lock, then overwrites the commit.
	e = newEnv(t)
	id = e.addValid("job-a")
	owner, got := holdFinalizeOpen(t, e, names.BugRecoveryOverwritesFinalized)
	require.Equal(t, 1, e.poll(owner))
	require.EqualValues(t, 1, <-got)
	require.Equal(t, "pending", e.row(id).Status)
}

func TestPoisonAsTransientRetriesAPermanentFailure(t *testing.T) {
	e := newEnv(t)
	id := e.addEvent("ai.job.cancel", "job-t", queueA, "created")
	require.Equal(t, 1, e.poll(e.dispatcher(e.config("d1", names.BugPoisonAsTransient))))
	r := e.row(id)
	require.Equal(t, "pending", r.Status)
	require.Contains(t, r.LastError, "attempt 1 of 5: "+reference.ReasonUnknownEventType+": ")
	require.Positive(t, r.DueInMicros, "retried with backoff")

	base := newEnv(t)
	id = base.addEvent("ai.job.cancel", "job-t", queueA, "created")
	base.poll(base.dispatcher(base.config("d1", "")))
	r = base.row(id)
	require.Equal(t, "failed", r.Status)
	require.Equal(t, 1, r.Attempts)
	require.Contains(t, r.LastError, reference.ReasonUnknownEventType+": ")
}

func TestNoBackoffMakesAFailedEventDueAtOnce(t *testing.T) {
	for _, c := range []struct {
		bug     string
		delayed bool
	}{{names.BugNoBackoff, false}, {"", true}} {
		e := newEnv(t)
		id := e.addValid("job-a")
		require.Equal(t, 1, e.poll(e.dispatcher(e.config("d1", c.bug), e.downRedis())))
		r := e.row(id)
		require.Equal(t, "pending", r.Status)
		require.Contains(t, r.LastError, "attempt 1 of 5: publish batch:")
		if c.delayed {
			require.Greater(t, r.DueInMicros, int64(0), "available_at is in the future")
			require.LessOrEqual(t, r.DueInMicros, (100 * time.Millisecond).Microseconds())
		} else {
			require.LessOrEqual(t, r.DueInMicros, int64(0), "available_at is NOW(6): no backoff")
		}
	}
}

func TestUnboundedAttemptsRetriesPastTheMaximum(t *testing.T) {
	for _, c := range []struct{ bug, want string }{{names.BugUnboundedAttempts, "pending"}, {"", "failed"}} {
		e := newEnv(t)
		id := e.addValid("job-a")
		_, err := e.db.Exec(`UPDATE outbox_events SET attempts = 4 WHERE id = ?`, id)
		require.NoError(t, err)
		require.Equal(t, 1, e.poll(e.dispatcher(e.config("d1", c.bug), e.downRedis())))
		r := e.row(id)
		require.Equal(t, 5, r.Attempts)
		require.Equal(t, c.want, r.Status, "bug %q at attempt 5 of 5", c.bug)
		if c.want == "failed" {
			require.Contains(t, r.LastError, "max_attempts: attempt 5 of 5")
		}
	}
}

func TestPushWithoutCheckQueuesAJobTwiceSilently(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-a")
	d := e.dispatcher(e.config("d1", names.BugPushWithoutCheck))
	e.poll(d)
	e.rewind(id, "job-a")
	e.poll(d)
	require.Equal(t, []string{"job-a", "job-a"}, e.list("bull:"+queueA+":wait"), "pushed twice: a worker runs it twice")
	require.Empty(t, e.streamEvents(queueA), "no added, waiting or duplicated events")
	require.Equal(t, `{"jobId":"job-a"}`, e.hash("bull:" + queueA + ":job-a")["data"])
}

func TestOverwriteJobDataRewritesAnExistingJob(t *testing.T) {
	for _, c := range []struct{ bug, want string }{
		{names.BugOverwriteJobData, `{"dispatcher":"d2","jobId":"job-a"}`},
		{"", `{"jobId":"job-a"}`},
	} {
		e := newEnv(t)
		id := e.addValid("job-a")
		e.poll(e.dispatcher(e.config("d1", c.bug)))
		first := e.hash("bull:" + queueA + ":job-a")["data"]
		e.rewind(id, "job-a")
		e.poll(e.dispatcher(e.config("d2", c.bug)))
		require.Equal(t, c.want, e.hash("bull:" + queueA + ":job-a")["data"], "bug %q", c.bug)
		if c.bug != "" {
			require.Equal(t, `{"dispatcher":"d1","jobId":"job-a"}`, first)
		}
		require.Equal(t, []string{"job-a"}, e.list("bull:"+queueA+":wait"), "still one job")
	}
}

func TestPublishedNotQueuedLeavesTheJobCreated(t *testing.T) {
	for _, c := range []struct{ bug, want string }{{names.BugPublishedNotQueued, "created"}, {"", "queued"}} {
		e := newEnv(t)
		id := e.addValid("job-a")
		e.poll(e.dispatcher(e.config("d1", c.bug)))
		require.Equal(t, "published", e.row(id).Status)
		require.Equal(t, c.want, e.JobStatus("job-a"), "bug %q", c.bug)
	}
}

// TestGlobalLockHoldersOverlapAfterTheTTL: A takes the lock and claims; its
// lock runs out while it is paused; B takes the lock, adopts A's claim and
// publishes it; A wakes and finalizes over B's published row. The correct
// mode with the same lock (global-lock-batch20) is fenced: A writes nothing.
func TestGlobalLockHoldersOverlapAfterTheTTL(t *testing.T) {
	for _, c := range []struct {
		bug, mode string
		aWrites   bool
	}{{names.BugGlobalLock, "", true}, {"", names.ModeGlobalLockBatch20, false}} {
		e := newEnv(t)
		id := e.addValid("job-a")
		short := func(name string) Config {
			cfg := e.config(name, c.bug)
			cfg.Mode = c.mode
			cfg.Lease, cfg.PublishTimeout, cfg.RecoveryMargin = 300*time.Millisecond, 100*time.Millisecond, 10*time.Millisecond
			return cfg
		}
		a, b := e.dispatcher(short("a")), e.dispatcher(short("b"))
		ctx := context.Background()
		held, err := a.lock.acquire(ctx)
		require.NoError(t, err)
		require.True(t, held)
		claimed, err := a.claim(ctx)
		require.NoError(t, err)
		require.Len(t, claimed.events, 1)
		e.waitFor("A's lock to expire", func() bool { return e.Redis.Exists(ctx, "bull:outbox-dispatch-lock").Val() == 0 })
		e.waitFor("B to take the lock and publish A's event", func() bool {
			e.poll(b)
			return e.row(id).Status == "published"
		})
		before := len(e.transitions(id))
		require.NoError(t, a.finalize(ctx, claimed, []fate{publish(howAdded)}))
		after := e.transitions(id)
		if c.aWrites {
			require.Equal(t, "published->published", after[len(after)-1], "A overwrote B's finalized row")
		} else {
			require.Len(t, after, before, "A is fenced out: no write")
		}
		require.Equal(t, "b", e.row(id).LockedBy)
	}
}
