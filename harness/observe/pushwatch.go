package observe

import (
	"context"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// waitingStructures are the queue keys a new job's id is pushed into: the
// lists wait and paused, the sorted sets prioritized and delayed.
var waitingStructures = map[string]string{
	"wait": "list", "paused": "list", "prioritized": "zset", "delayed": "zset",
}

const (
	pushFirstRead = 16   // ids read from a list's pushed end at first
	pushMaxRead   = 4096 // the most ids read per push notification
)

// pushedStructure says whether a notification is a push of ids into one of
// queue's waiting structures, and which.
func pushedStructure(base, key, event string) (string, bool) {
	name, ok := strings.CutPrefix(key, base)
	if !ok {
		return "", false
	}
	switch waitingStructures[name] {
	case "list":
		return name, event == "lpush" || event == "rpush"
	case "zset":
		return name, event == "zadd"
	}
	return "", false
}

// signalPushed reads the ids a push may have added and signals those not
// seen yet, each with its data.jobId read from its hash. It runs only when
// someone subscribed: the history does not need it (the final scan reads
// every structure). A list is read from the end pushed, deeper while every
// id read is new (one notification may stand for many pushes, a script's
// batch); a sorted set is read whole, up to pushMaxRead members.
func (o *RedisObserver) signalPushed(ctx context.Context, q, name, key, event string) {
	if !o.fan.active() {
		return
	}
	at := time.Now().UTC()
	var ids []string
	var err error
	if waitingStructures[name] == "zset" {
		ids, err = o.rdb.ZRange(ctx, key, 0, pushMaxRead-1).Result()
		ids = o.unseen(q, ids)
	} else {
		ids, err = o.newListHead(ctx, q, key, event == "rpush")
	}
	if err != nil || len(ids) == 0 {
		return // a signal only: the history's own reads are unaffected
	}
	data := o.readDataJobIDs(ctx, q, ids)
	for i, id := range ids {
		level := sightID
		if data[i] != nil {
			level = sightData
		}
		o.fan.publish(Creation{Queue: q, JobID: id, DataJobID: deref(data[i]), Source: name, At: at}, level)
	}
}

// newListHead reads the unseen ids at a list's pushed end: the head for
// LPUSH, the tail for RPUSH.
func (o *RedisObserver) newListHead(ctx context.Context, q, key string, tail bool) ([]string, error) {
	for n := int64(pushFirstRead); ; n *= 2 {
		start, stop := int64(0), n-1
		if tail {
			start, stop = -n, -1
		}
		ids, err := o.rdb.LRange(ctx, key, start, stop).Result()
		if err != nil {
			return nil, err
		}
		fresh := o.unseen(q, ids)
		if len(fresh) < len(ids) || int64(len(ids)) < n || n >= pushMaxRead {
			return fresh, nil
		}
	}
}

func (o *RedisObserver) unseen(q string, ids []string) []string {
	var out []string
	for _, id := range ids {
		if id != "" && !strings.Contains(id, ":") && !o.fan.seen(q, id) {
			out = append(out, id)
		}
	}
	return out
}

// readDataJobIDs reads each job hash's data and returns its data.jobId
// (nil where the data could not be read).
func (o *RedisObserver) readDataJobIDs(ctx context.Context, q string, ids []string) []*string {
	pipe := o.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HGet(ctx, o.base(q)+id, "data")
	}
	_, _ = pipe.Exec(ctx) // errors are per command
	out := make([]*string, len(ids))
	for i, c := range cmds {
		data, err := c.Result()
		if err != nil { // gone, or not readable: the id alone is known
			continue
		}
		v := history.DataJobID(data)
		out[i] = &v
	}
	return out
}

// signalNote signals a job hash created or found by a rescan, and forgets a
// deleted one.
func (o *RedisObserver) signalNote(n history.KeyNote) {
	switch n.Event {
	case "del":
		o.fan.forget(n.Queue, n.JobID)
	case "new", EventScan:
		level, src := sightID, SourceHash
		if n.Data != "" || n.DataJobID != "" {
			level = sightData
		}
		if n.Event == EventScan {
			src = SourceRescan
		}
		o.fan.publish(Creation{Queue: n.Queue, JobID: n.JobID, DataJobID: n.DataJobID, Source: src, At: n.At}, level)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
