package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// dispatch validates one event and adds its job.
func (w *worker) dispatch(ev event) fate {
	if ev.kind != "ai.job.enqueue" {
		return fate{status: "failed", errText: fmt.Sprintf("permanent: event type %q is not dispatched", ev.kind)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.PublishTimeout)
	defer cancel()
	var queue, state string
	err := w.db.QueryRowContext(ctx, `SELECT queue_name, status FROM ai_jobs WHERE id = ?`, ev.jobID).Scan(&queue, &state)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fate{status: "failed", errText: fmt.Sprintf("permanent: job %q does not exist", ev.jobID)}
	case err != nil:
		return w.retry(ev, fmt.Sprintf("read job %q: %v", ev.jobID, err))
	case state != "created":
		return fate{status: "published"} // dispatched before: no second add
	case !w.cfg.allowed(queue):
		return fate{status: "failed", errText: fmt.Sprintf("permanent: queue %q is not allowed", queue)}
	case !validJobID(ev.jobID):
		return fate{status: "failed", errText: fmt.Sprintf("permanent: %q is not a legal BullMQ jobId (all digits, or a ':')", ev.jobID)}
	}
	if w.cfg.Plant == PlantMarkBeforeEnqueue {
		if err := w.settle([]event{ev}, []fate{{status: "published"}}); err != nil {
			return w.retry(ev, "mark published: "+err.Error())
		}
	}
	if err := w.addJob(ctx, queue, ev.jobID); err != nil {
		return w.retry(ev, fmt.Sprintf("add job %q to %s: %v", ev.jobID, queue, err))
	}
	return fate{status: "published"}
}

func validJobID(id string) bool {
	digits := id != ""
	for _, c := range id {
		if c == ':' {
			return false
		}
		if c < '0' || c > '9' {
			digits = false
		}
	}
	return id != "" && !digits
}

// retry is a transient failure: pending again after a doubling backoff, or
// failed once the attempts are used up.
func (w *worker) retry(ev event, why string) fate {
	msg := fmt.Sprintf("transient (attempt %d/%d): %s", ev.attempts, w.cfg.MaxAttempts, why)
	if ev.attempts >= w.cfg.MaxAttempts {
		return fate{status: "failed", errText: msg}
	}
	return fate{status: "pending", errText: msg}
}

func (w *worker) delay(attempts int) time.Duration {
	d := w.cfg.BackoffBase << (attempts - 1)
	if d <= 0 || d > w.cfg.BackoffMax {
		return w.cfg.BackoffMax
	}
	return d
}

// addScript writes what a BullMQ add writes for a new custom jobId, minus the
// events stream: the job hash, the id counter, the wait list and the marker
// (so workers wake at once), and a dispatched key (KEYS[5], expiring after
// ARGV[6] seconds) that outlives the hash a worker deletes on completion. An
// existing hash or dispatched key leaves everything untouched.
const addScript = `
redis.call('INCR', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[5]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4], 'timestamp', ARGV[5], 'delay', '0', 'priority', '0')
redis.call('SET', KEYS[5], ARGV[5], 'EX', ARGV[6])
redis.call('LPUSH', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], 0, '0')
return 1
`

// dispatchedFor is how long a dispatched key keeps a re-add of its jobId a
// no-op (removeOnComplete deletes the hash, and BullMQ's own check with it).
const dispatchedFor = 7 * 24 * time.Hour

func (w *worker) addJob(ctx context.Context, queue, id string) error {
	base := w.cfg.Prefix + ":" + queue + ":"
	data, err := json.Marshal(struct {
		JobID string `json:"jobId"`
	}{id})
	if err != nil {
		return err
	}
	opts := fmt.Sprintf(`{"jobId":%q,"attempts":0,"delay":0}`, id)
	keys := []string{base + id, base + "id", base + "wait", base + "marker", "dispatched/" + w.cfg.Prefix + "/" + queue + "/" + id}
	return w.rdb.Eval(ctx, addScript, keys, id, queue, string(data), opts, time.Now().UnixMilli(), int64(dispatchedFor.Seconds())).Err()
}
