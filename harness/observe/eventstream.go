package observe

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// eventsReader is the reader of every queue's BullMQ events stream
// "<prefix>:<q>:events": the keyspace subscription tells it of deletions,
// so it keeps no marker.
func (o *RedisObserver) eventsReader() *streamReader {
	r := &streamReader{rdb: o.rdb, what: "events streams", onEntry: o.recordEvent,
		onGap: func(st *streamState, detail string) {
			o.rec.AddGap(history.Gap{Source: StreamSource(st.name), At: time.Now().UTC(), Detail: detail, Kept: st.takeKept()})
		}}
	for _, q := range o.queues {
		r.streams = append(r.streams, &streamState{name: q, key: o.base(q) + "events", lastID: "0"})
	}
	return r
}

// streamDeleted is called from the keyspace loop when a queue's events stream
// key is removed; the stream loop reports it on its next check.
func (o *RedisObserver) streamDeleted(q string) {
	for _, st := range o.events.streams {
		if st.name == q {
			st.deleted.Store(true)
		}
	}
}

// streamLoop follows the events streams until stopped, then drains them.
func (o *RedisObserver) streamLoop(ctx context.Context, stopping <-chan struct{}, done chan<- struct{}) {
	defer o.wg.Done()
	defer close(done)
	o.events.loop(ctx, stopping)
}

// recordEvent records one events stream entry, and signals an "added" one.
func (o *RedisObserver) recordEvent(st *streamState, msg redis.XMessage) {
	e := streamEntry(st.name, msg)
	o.rec.AddStream(e)
	if e.Event == "added" && e.JobID != "" {
		o.fan.publish(Creation{Queue: e.Queue, JobID: e.JobID, Source: SourceStream, At: time.Now().UTC()}, sightID)
	}
}

func streamEntry(queue string, msg redis.XMessage) history.StreamEntry {
	e := history.StreamEntry{Queue: queue, ID: msg.ID, At: parseStreamID(msg.ID).time()}
	for k, v := range msg.Values {
		s := fmt.Sprint(v)
		switch k {
		case "event":
			e.Event = s
		case "jobId":
			e.JobID = s
		case "name":
			e.Name = s
		default:
			if e.Extra == nil {
				e.Extra = map[string]string{}
			}
			e.Extra[k] = s
		}
	}
	return e
}
