package bullmq

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Add adds jobs in one round trip: a pipeline of one EVALSHA per valid job.
// Results are in input order, one per job. Invalid jobs get a per-job error
// and are never sent. A non-nil error means the outcome of the batch is
// unknown (transport error, timeout, cancelled context): some adds may have
// run; retry the whole batch (adds are idempotent within the horizon).
//
// When Redis lost its script cache (restart, SCRIPT FLUSH) the script is
// loaded and the jobs that met NOSCRIPT are sent once more.
func (p *Producer) Add(ctx context.Context, jobs []Job) ([]Result, error) {
	results := make([]Result, len(jobs))
	var send []int
	for i, j := range jobs {
		results[i].Job = j
		if err := j.validate(); err != nil {
			results[i].Err = err
			continue
		}
		send = append(send, i)
	}
	if len(send) == 0 {
		return results, nil
	}
	missing, err := p.run(ctx, send, results)
	if err != nil || len(missing) == 0 {
		return resultsOrNil(results, err)
	}
	if err := p.rdb.ScriptLoad(ctx, addScript).Err(); err != nil {
		return nil, fmt.Errorf("bullmq add: reload script after NOSCRIPT: %w", err)
	}
	missing, err = p.run(ctx, missing, results)
	for _, i := range missing {
		results[i].Err = fmt.Errorf("bullmq add job %q to queue %q: script missing again right after loading it (SCRIPT FLUSH loop?)", jobs[i].ID, jobs[i].Queue)
	}
	return resultsOrNil(results, err)
}

// LoadScript loads the add script into Redis now, for a client that loads
// its scripts before its first add. Add needs no such call: it loads the
// script whenever Redis answers NOSCRIPT.
func (p *Producer) LoadScript(ctx context.Context) error {
	if err := p.rdb.ScriptLoad(ctx, addScript).Err(); err != nil {
		return fmt.Errorf("bullmq: load the add script: %w", err)
	}
	return nil
}

func resultsOrNil(results []Result, err error) ([]Result, error) {
	if err != nil {
		return nil, err
	}
	return results, nil
}

// run sends results[i].Job for every i in send as one pipeline and fills in
// their results. It returns the indexes whose EVALSHA met NOSCRIPT.
func (p *Producer) run(ctx context.Context, send []int, results []Result) (missing []int, err error) {
	pipe := p.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(send))
	for k, i := range send {
		args, err := p.args(results[i].Job)
		if err != nil {
			return nil, err
		}
		cmds[k] = pipe.EvalSha(ctx, addScriptSHA, p.keys(results[i].Job), args...)
	}
	var wait *redis.Cmd
	if p.wait.replicas > 0 { // same pipeline, same connection: WAIT covers these adds
		wait = pipe.Do(ctx, "WAIT", p.wait.replicas, p.wait.timeout.Milliseconds())
	}
	_, _ = pipe.Exec(ctx) // every command's own error is examined below
	for k, i := range send {
		reply, err := cmds[k].Result()
		switch {
		case err == nil:
			results[i].Outcome, results[i].Err = outcomeOf(results[i].Job, reply)
		case redis.HasErrorPrefix(err, "NOSCRIPT"):
			missing = append(missing, i)
		case isErrorReply(err):
			results[i].Err = replyError(results[i].Job, err)
		default:
			return nil, fmt.Errorf("bullmq add batch of %d jobs: outcome unknown: %w", len(send), err)
		}
	}
	p.replicated(wait, send, results)
	return missing, nil
}

// replicated turns every add in send that Redis ran into ErrNotReplicated
// when wait (nil: no WAIT asked) counted fewer replicas than asked for.
func (p *Producer) replicated(wait *redis.Cmd, send []int, results []Result) {
	if wait == nil {
		return
	}
	n, err := wait.Int64()
	if err == nil && n >= int64(p.wait.replicas) {
		return
	}
	why := fmt.Sprintf("WAIT counted %d of %d replicas within %v", n, p.wait.replicas, p.wait.timeout)
	if err != nil {
		why = fmt.Sprintf("WAIT failed: %v", err)
	}
	for _, i := range send {
		if r := &results[i]; r.Err == nil && r.Outcome != 0 {
			r.Err = fmt.Errorf("bullmq add job %q to queue %q: %w: %s", r.Job.ID, r.Job.Queue, ErrNotReplicated, why)
		}
	}
}

// isErrorReply tells a Redis error reply (about this command only) from a
// transport or context error (about the whole batch).
func isErrorReply(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply) && !errors.Is(err, redis.Nil)
}

func replyError(j Job, err error) error {
	if strings.HasPrefix(err.Error(), replyIllegalJobID) {
		return fmt.Errorf("bullmq add job %q to queue %q: refused by the add script: %w (%v)", j.ID, j.Queue, ErrIllegalJobID, err)
	}
	return fmt.Errorf("bullmq add job %q to queue %q: %w", j.ID, j.Queue, err)
}

func outcomeOf(j Job, reply any) (Outcome, error) {
	code, ok := reply.(int64)
	switch {
	case ok && code == replyAdded:
		return Added, nil
	case ok && code == replyDuplicate:
		return Duplicate, nil
	case ok && code == replyDeduped:
		return Deduped, nil
	}
	return 0, fmt.Errorf("bullmq add job %q to queue %q: unexpected script reply %v (%T)", j.ID, j.Queue, reply, reply)
}
