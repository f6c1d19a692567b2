package bullmq

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Producer adds BullMQ jobs with custom ids. It is safe for concurrent use.
type Producer struct {
	rdb       redis.UniversalClient
	prefix    string
	horizonMs string
	remove    bool
	wait      waitFor
}

// waitFor is the WAIT an add batch ends with (Options.WaitReplicas).
type waitFor struct {
	replicas int
	timeout  time.Duration
}

// NewProducer validates opts and prepares the add script. It does not
// contact Redis: the script is loaded on first use (and again after a Redis
// restart), so a producer can be built while Redis is down.
func NewProducer(rdb redis.UniversalClient, opts Options) (*Producer, error) {
	if rdb == nil {
		return nil, errors.New("bullmq producer: redis client is nil")
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return &Producer{
		rdb:       rdb,
		prefix:    opts.Prefix,
		horizonMs: strconv.FormatInt(opts.DedupeHorizon.Milliseconds(), 10),
		remove:    opts.RemoveOnComplete,
		wait:      waitFor{replicas: opts.WaitReplicas, timeout: opts.WaitTimeout},
	}, nil
}

// DedupeKey is the key of the dedupe record for job id in queue.
func (p *Producer) DedupeKey(queue, id string) string {
	return p.queueKey(queue, "ocdedupe:"+id)
}

func (p *Producer) queueKey(queue, suffix string) string {
	return p.prefix + ":" + queue + ":" + suffix
}

// keys lists add.lua's KEYS for j, in the script's order.
func (p *Producer) keys(j Job) []string {
	return []string{
		p.queueKey(j.Queue, "id"),
		p.queueKey(j.Queue, "meta"),
		p.queueKey(j.Queue, j.ID),
		p.DedupeKey(j.Queue, j.ID),
		p.queueKey(j.Queue, "active"),
		p.queueKey(j.Queue, "wait"),
		p.queueKey(j.Queue, "paused"),
		p.queueKey(j.Queue, "marker"),
		p.queueKey(j.Queue, "events"),
	}
}

// jobOpts is the opts JSON stored in the job hash: what a BullMQ Queue.add
// with {jobId} stores, plus delay 0 and the optional removeOnComplete.
type jobOpts struct {
	JobID            string `json:"jobId"`
	Attempts         int    `json:"attempts"`
	Delay            int    `json:"delay"`
	RemoveOnComplete bool   `json:"removeOnComplete,omitempty"`
}

func (p *Producer) args(j Job) ([]any, error) {
	opts, err := json.Marshal(jobOpts{JobID: j.ID, RemoveOnComplete: p.remove})
	if err != nil {
		return nil, fmt.Errorf("encode opts of job %q: %w", j.ID, err)
	}
	return []any{j.ID, j.Name, j.Data, string(opts), p.horizonMs}, nil
}
