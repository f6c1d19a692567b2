package observe

import (
	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// StreamMarker is the consumer group the sink observer keeps on every
// stream of a stream sink as the stream's identity. Nothing is read through
// it; a stream found without it was deleted (package doc).
const StreamMarker = "outboxchaos-observer"

// streamReader is the reader of a stream sink's keys: with no keyspace
// subscription, it tells deletions by its marker group and restarts by the
// server's run_id.
func (o *SinkObserver) streamReader() *streamReader {
	r := &streamReader{rdb: o.rdb, what: "sink streams", marker: StreamMarker, restarts: &restartWatch{},
		onEntry: o.recordEntry,
		onGap:   func(st *streamState, detail string) { o.gapKept(st.key, detail, st.takeKept()) }}
	for _, k := range o.cfg.Keys {
		r.streams = append(r.streams, &streamState{name: k, key: k, lastID: "0"})
	}
	return r
}

// recordEntry records one entry of a sink stream, stamped with its id's
// time.
func (o *SinkObserver) recordEntry(st *streamState, msg redis.XMessage) {
	m := o.cfg.Entry(msg.Values)
	o.add(history.Append{Sink: history.SinkStream, Key: st.key, ID: msg.ID, MessageID: m.ID, DataJobID: m.DataJobID,
		At: parseStreamID(msg.ID).time()})
}
