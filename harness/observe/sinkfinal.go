package observe

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/sink"
)

// ScanSinkFinal returns the messages a stream or list sink holds at the end
// that the live observer did not record (live: the run's appends so far),
// each marked Final: a stream's entries (XRANGE - +) whose ids were not
// seen live, a list's elements never moved (still in the list, oldest
// first). Call it after SinkObserver.Stop; history.Final.Appends holds it.
func ScanSinkFinal(ctx context.Context, rdb *redis.Client, cfg sink.Config, live []history.Append) ([]history.Append, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("final sink scan: %w", err)
	}
	out := []history.Append{}
	for _, key := range cfg.Keys {
		var more []history.Append
		var err error
		if cfg.Kind == history.SinkStream {
			more, err = unseenEntries(ctx, rdb, cfg, key, live)
		} else {
			more, err = unmovedElements(ctx, rdb, cfg, key, live)
		}
		if err != nil {
			return nil, fmt.Errorf("final sink scan of %s: %w", key, err)
		}
		out = append(out, more...)
	}
	return out, nil
}

// unseenEntries reads the whole stream in pages and keeps the entries no
// live append recorded.
func unseenEntries(ctx context.Context, rdb *redis.Client, cfg sink.Config, key string, live []history.Append) ([]history.Append, error) {
	seen := map[string]bool{}
	for _, a := range live {
		if a.Sink == history.SinkStream && a.Key == key {
			seen[a.ID] = true
		}
	}
	var out []history.Append
	for start := "-"; ; {
		msgs, err := rdb.XRangeN(ctx, key, start, "+", streamCount).Result()
		if err != nil {
			return nil, fmt.Errorf("XRANGE: %w", err)
		}
		for _, msg := range msgs {
			if seen[msg.ID] {
				continue
			}
			m := cfg.Entry(msg.Values)
			out = append(out, history.Append{Sink: history.SinkStream, Key: key, ID: msg.ID, MessageID: m.ID,
				DataJobID: m.DataJobID, At: parseStreamID(msg.ID).time(), Final: true})
		}
		if len(msgs) < streamCount {
			return out, nil
		}
		start = "(" + msgs[len(msgs)-1].ID
	}
}

// unmovedElements reads the list oldest first; each element gets the id
// the mover would have given it next.
func unmovedElements(ctx context.Context, rdb *redis.Client, cfg sink.Config, key string, live []history.Append) ([]history.Append, error) {
	var last int64
	for _, a := range live {
		if n, err := strconv.ParseInt(a.ID, 10, 64); err == nil && a.Sink == history.SinkList && a.Key == key && n > last {
			last = n
		}
	}
	elems, err := rdb.LRange(ctx, key, 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("LRANGE: %w", err)
	}
	if cfg.Oldest() == "RIGHT" {
		slices.Reverse(elems)
	}
	now := time.Now().UTC()
	out := make([]history.Append, 0, len(elems))
	for i, e := range elems {
		m := cfg.Element(e)
		out = append(out, history.Append{Sink: history.SinkList, Key: key, ID: strconv.FormatInt(last+int64(i)+1, 10),
			MessageID: m.ID, DataJobID: m.DataJobID, At: now, Final: true})
	}
	return out, nil
}
