package bullmq

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Lookup names a job to look for: its id and the queues it may be in.
type Lookup struct {
	ID     string
	Queues []string
}

// Seen reports, for each lookup, whether Redis holds the job's hash or its
// dedupe record in any of its queues: either means BullMQ has had the job
// (the dedupe record outlives a hash removed by removeOnComplete). It sends
// one pipeline of EXISTS, one per key. A non-nil error means nothing was
// decided: the caller must not conclude the job is absent.
func (p *Producer) Seen(ctx context.Context, lookups []Lookup) ([]bool, error) {
	pipe := p.rdb.Pipeline()
	cmds := make([][]*redis.IntCmd, len(lookups))
	for i, l := range lookups {
		for _, q := range l.Queues {
			cmds[i] = append(cmds[i], pipe.Exists(ctx, p.queueKey(q, l.ID)), pipe.Exists(ctx, p.DedupeKey(q, l.ID)))
		}
	}
	if pipe.Len() == 0 {
		return make([]bool, len(lookups)), nil
	}
	_, _ = pipe.Exec(ctx) // every command's own error is examined below
	seen := make([]bool, len(lookups))
	for i, cs := range cmds {
		for _, c := range cs {
			n, err := c.Result()
			if err != nil {
				return nil, fmt.Errorf("bullmq look for job %q: %w", lookups[i].ID, err)
			}
			seen[i] = seen[i] || n > 0
		}
	}
	return seen, nil
}
