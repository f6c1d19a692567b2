package dispatcher

import (
	"context"
	"fmt"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

// TestBaseMovesEventsCorrectly runs two base instances over a few hundred
// events of every kind and checks every event's end state in MySQL and Redis.
func TestBaseMovesEventsCorrectly(t *testing.T) {
	e := newEnv(t)
	const valid = 300
	var jobs []string
	for i := 0; i < valid; i++ {
		q := []string{queueA, queueB}[i%2]
		jobs = append(jobs, fmt.Sprintf("job-%d", i))
		e.addEvent(reference.EventTypeEnqueue, jobs[i], q, "created")
	}
	poison := map[int64]string{
		e.addEvent("ai.job.cancel", "job-t", queueA, "created"):                 reference.ReasonUnknownEventType,
		e.addEvent(reference.EventTypeEnqueue, "job-none", queueA, ""):          reference.ReasonJobNotFound,
		e.addEvent(reference.EventTypeEnqueue, "job-q", "ai-secret", "created"): reference.ReasonQueueNotAllowed,
		e.addEvent(reference.EventTypeEnqueue, "4242", queueA, "created"):       reference.ReasonIllegalJobID,
	}
	already := e.addEvent(reference.EventTypeEnqueue, "job-done", queueA, "succeeded")
	for i := 1; i <= 2; i++ {
		cfg := e.config(fmt.Sprintf("d%d", i), "")
		cfg.BatchSize = 25
		e.run(e.dispatcher(cfg))
	}
	e.waitFor("every event final", func() bool {
		return e.Count(`SELECT COUNT(*) FROM outbox_events WHERE status IN ('pending', 'processing')`) == 0
	})

	require.Equal(t, valid+1, e.Count(`SELECT COUNT(*) FROM outbox_events WHERE status = 'published'`))
	require.Zero(t, e.Count(`SELECT COUNT(*) FROM outbox_events WHERE attempts <> 1`), "every event claimed once")
	require.Zero(t, e.Count(`SELECT COUNT(*) FROM audit WHERE new_status = 'processing' AND old_status <> 'pending'`))
	require.Equal(t, valid, e.Count(`SELECT COUNT(*) FROM ai_jobs WHERE status = 'queued'`))
	require.GreaterOrEqual(t, e.Count(`SELECT COUNT(DISTINCT locked_by) FROM outbox_events`), 2, "both instances worked")
	for id, reason := range poison {
		r := e.row(id)
		require.Equal(t, "failed", r.Status, "poison event %d", id)
		require.Contains(t, r.LastError, reason+": ")
	}
	require.Equal(t, "published", e.row(already).Status)
	require.Equal(t, "succeeded", e.JobStatus("job-done"))

	waiting := append(e.list("bull:"+queueA+":wait"), e.list("bull:"+queueB+":wait")...)
	require.ElementsMatch(t, jobs, waiting, "each valid job queued exactly once, nothing else")
	for _, j := range []string{jobs[0], jobs[1]} {
		q := map[bool]string{true: queueA, false: queueB}[j == jobs[0]]
		require.Equal(t, `{"jobId":"`+j+`"}`, e.hash("bull:" + q + ":" + j)["data"])
	}
}

// TestBaseCrashPointsAreInDispatchOrder proves where the four failpoints
// sit in the base and what each one leaves behind.
func TestBaseCrashPointsAreInDispatchOrder(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-a")
	var log crashLog
	seen := map[string]string{}
	log.onCrash = func() {
		p := log.points()
		seen[p[len(p)-1]] = e.row(id).Status + "/" + e.JobStatus("job-a") + "/" + fmt.Sprint(len(e.hash("bull:"+queueA+":job-a")) > 0)
	}
	d := e.dispatcher(e.config("d1", ""), log.set(t, "after-claim=crash;after-enqueue=crash;before-finalize-commit=crash;after-finalize-commit=crash"))
	require.Equal(t, 1, e.poll(d))
	require.Equal(t, []string{"after-claim", "after-enqueue", "before-finalize-commit", "after-finalize-commit"}, log.points())
	require.Equal(t, "processing/created/false", seen["after-claim"])
	require.Equal(t, "processing/created/true", seen["after-enqueue"], "the job is in BullMQ, the event still held")
	require.Equal(t, "processing/created/true", seen["before-finalize-commit"], "the finalize is not visible before its commit")
	require.Equal(t, "published/queued/true", seen["after-finalize-commit"])
}

// TestBaseRecoveryWaitsForAFinalizeHoldingTheRow: a finalize holds its row
// locks past the lease; the guarded recovery waits for them and then leaves
// the finalized row alone.
func TestBaseRecoveryWaitsForAFinalizeHoldingTheRow(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-a")
	owner, rec := holdFinalizeOpen(t, e, "")
	require.Equal(t, 1, e.poll(owner))
	require.Equal(t, int64(0), <-rec, "the guarded recovery skipped the row finalized while it waited")
	require.Equal(t, "published", e.row(id).Status)
	// The middle step is the test expiring the lease.
	require.Equal(t, []string{"pending->processing", "processing->processing", "processing->published"}, e.transitions(id))
}

// holdFinalizeOpen returns an owner whose lease runs out right after its
// claim and whose finalize, once its rows are written but before COMMIT,
// starts a recovery by a second instance with the same bug, waits until that
// recovery is blocked on the owner's row locks, and only then commits. The
// channel yields how many rows the recovery reset.
func holdFinalizeOpen(t *testing.T, e *env, bug string) (*Dispatcher, <-chan int64) {
	recoverer := e.dispatcher(e.config("d2", bug))
	var log crashLog
	owner := e.dispatcher(e.config("d1", bug), log.set(t, "after-claim=crash;before-finalize-commit=crash"))
	rec := make(chan int64, 1)
	log.onCrash = func() {
		p := log.points()
		if p[len(p)-1] == "after-claim" {
			_, err := e.db.Exec(`UPDATE outbox_events SET locked_until = NOW(6) - INTERVAL 1 SECOND WHERE status = 'processing'`)
			require.NoError(t, err)
			return
		}
		go func() {
			n, err := recoverer.recoverExpired(context.Background())
			if err != nil {
				t.Errorf("recovery: %v", err)
			}
			rec <- n
		}()
		// InnoDB refreshes INNODB_TRX only when it was not read for 100 ms.
		e.waitEvery("the recovery blocked on the owner's row lock", 150*time.Millisecond, func() bool {
			return e.Count(`SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'`) > 0
		})
	}
	return owner, rec
}

// runModeToTheEnd runs two instances in mode over n valid events until all
// are published, and requires each claimed once and queued once.
func runModeToTheEnd(e *env, mode string, n int) {
	e.t.Helper()
	for i := 0; i < n; i++ {
		e.addValid(fmt.Sprintf("job-%d", i))
	}
	for i := 1; i <= 2; i++ {
		cfg := e.config(fmt.Sprintf("d%d", i), "")
		cfg.Mode = mode
		e.run(e.dispatcher(cfg))
	}
	e.waitFor("every event published", func() bool {
		return e.Count(`SELECT COUNT(*) FROM outbox_events WHERE status = 'published'`) == n
	})
	require.Zero(e.t, e.Count(`SELECT COUNT(*) FROM outbox_events WHERE attempts <> 1`))
	require.Len(e.t, e.list("bull:"+queueA+":wait"), n)
}

func TestModeNestSingleClaimsOneEventPerTransaction(t *testing.T) {
	e := newEnv(t)
	runModeToTheEnd(e, names.ModeNestSingle, 30)
	require.Equal(t, 30, e.Count(`SELECT COUNT(DISTINCT new_token) FROM audit WHERE new_status = 'processing'`), "one token per event: one event per claim")
}

func TestModeGlobalLockBatch20TakesTheLockForEachBatchOf20(t *testing.T) {
	e := newEnv(t)
	runModeToTheEnd(e, names.ModeGlobalLockBatch20, 45)
	require.Zero(t, e.Count(`SELECT COUNT(*) FROM (SELECT new_token FROM audit WHERE new_status = 'processing'
		GROUP BY new_token HAVING COUNT(*) > 20) x`), "no batch above 20")
	require.GreaterOrEqual(t, e.Count(`SELECT COUNT(DISTINCT new_token) FROM audit WHERE new_status = 'processing'`), 3)

	// While another holds the lock, a tick claims nothing.
	require.NoError(t, e.Redis.Set(context.Background(), "bull:outbox-dispatch-lock", "someone", 0).Err())
	e.addValid("job-late")
	cfg := e.config("d3", "")
	cfg.Mode = names.ModeGlobalLockBatch20
	require.Zero(t, e.poll(e.dispatcher(cfg)))
	require.Equal(t, 1, e.Count(`SELECT COUNT(*) FROM outbox_events WHERE status = 'pending'`))
}

// TestBaseFinalizeDoesNotWaitForAnotherFinalize: while one instance's
// finalize holds its rows (a pause before COMMIT), another instance claims,
// adds and finalizes its own batch without waiting. On a small table the
// optimizer scans the whole table for the finalize's locking read, which
// then waited for every row the first finalize held.
func TestBaseFinalizeDoesNotWaitForAnotherFinalize(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 5; i++ {
		e.addValid(fmt.Sprintf("a-%d", i))
	}
	var log crashLog
	other := e.dispatcher(e.config("d2", ""))
	owner := e.dispatcher(e.config("d1", ""), log.set(t, "before-finalize-commit=crash@nth:1"))
	var otherErr error
	var otherTook time.Duration
	log.onCrash = func() {
		for i := 0; i < 5; i++ {
			e.addValid(fmt.Sprintf("b-%d", i))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		started := time.Now()
		_, otherErr = other.Poll(ctx)
		otherTook = time.Since(started)
	}
	require.Equal(t, 5, e.poll(owner))
	require.NoError(t, otherErr)
	require.Less(t, otherTook, 4*time.Second, "the second finalize waited for the first one's row locks")
	require.Equal(t, 10, e.Count(`SELECT COUNT(*) FROM outbox_events WHERE status = 'published'`))
}
