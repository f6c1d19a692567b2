package observe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/sink"
)

// SourceSink is the Creation source of a stream or list sink's message.
const SourceSink = "sink"

// sinkSourcePrefix + key is the Gap source for a stream or list sink's key.
const sinkSourcePrefix = "sink:"

// SinkSource is the Gap source naming a stream or list sink's key.
func SinkSource(key string) string { return sinkSourcePrefix + key }

// SinkObserver records every message a stream or list sink receives, as a
// history.Append: a stream's entries read from "0" (never consumed), or a
// list's elements moved into the harness's archive as they are pushed. See
// the package doc.
type SinkObserver struct {
	rdb *redis.Client
	cfg sink.Config
	rec *history.Recorder

	mu       sync.Mutex // guards the lifecycle fields below
	running  bool
	started  bool            // Start ran once (the list archives are emptied then)
	startCtx context.Context // the last Start's, for Checkpoint
	cancel   context.CancelFunc
	stopping chan struct{}
	wg       sync.WaitGroup

	// Followers' state, each owned by its goroutine; kept across Stop/Start.
	stream *streamReader // redis-stream
	movers []*listMover  // redis-list, one per key

	fan fanout
}

// NewSinkObserver returns an observer of the sink cfg describes. rdb must be
// a direct connection (never through the fault proxy).
func NewSinkObserver(rdb *redis.Client, cfg sink.Config, rec *history.Recorder) (*SinkObserver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sink observer: %w", err)
	}
	if rdb == nil {
		return nil, errors.New("sink observer: client is nil; pass a direct *redis.Client")
	}
	if rec == nil {
		return nil, errors.New("sink observer: recorder is nil; pass the run's history.Recorder")
	}
	cfg.Keys = append([]string(nil), cfg.Keys...)
	o := &SinkObserver{rdb: rdb, cfg: cfg, rec: rec}
	if cfg.Kind == history.SinkStream {
		o.stream = o.streamReader()
	} else {
		for _, k := range cfg.Keys {
			o.movers = append(o.movers, &listMover{o: o, src: k, archive: sink.Archive(k), from: cfg.Oldest()})
		}
	}
	return o, nil
}

// Subscribe returns a subscription to the messages the observer sees from
// now on (Creation, source SourceSink), as RedisObserver.Subscribe does.
func (o *SinkObserver) Subscribe(buffer int) *Subscription { return o.fan.subscribe(buffer) }

// Start checks the keys' types and starts following them; it returns once
// they are checked. The observer runs until Stop or until ctx ends.
func (o *SinkObserver) Start(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.running {
		return errors.New("sink observer: already started; call Stop first")
	}
	if err := o.prepare(ctx); err != nil {
		return fmt.Errorf("sink observer: %w", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	o.running, o.started, o.cancel, o.stopping, o.startCtx = true, true, cancel, make(chan struct{}), ctx
	if o.stream != nil {
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			o.stream.loop(runCtx, o.stopping)
		}()
	}
	for _, m := range o.movers {
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			m.loop(runCtx, o.stopping)
		}()
	}
	return nil
}

// prepare checks that every key holds what the sink's kind says, and
// takes the server's run_id; the first Start empties the list archives.
func (o *SinkObserver) prepare(ctx context.Context) error {
	info, err := o.rdb.Info(ctx, "server").Result()
	if err != nil {
		return fmt.Errorf("INFO server: %w", err)
	}
	if o.stream != nil {
		return o.prepareStreams(ctx, info)
	}
	for _, m := range o.movers {
		if err := o.checkTypes(ctx, "list", m.src, m.archive); err != nil {
			return err
		}
		if !o.started {
			if err := o.rdb.Del(ctx, m.archive).Err(); err != nil {
				return fmt.Errorf("empty the archive %s: %w", m.archive, err)
			}
		}
		if detail := m.restarts.check(ctx, o.rdb, info); detail != "" {
			o.gap(m.src, fmt.Sprintf("list %s: %s (while the observer was stopped)", m.src, detail))
		}
	}
	return nil
}

// prepareStreams checks the streams' types and syncs once, so every stream
// carries the marker before Start returns.
func (o *SinkObserver) prepareStreams(ctx context.Context, info string) error {
	if err := o.checkTypes(ctx, "stream", o.cfg.Keys...); err != nil {
		return err
	}
	if detail := o.stream.restarts.check(ctx, o.rdb, info); detail != "" {
		for _, k := range o.cfg.Keys {
			o.gap(k, fmt.Sprintf("stream %s: %s (while the observer was stopped)", k, detail))
		}
	}
	if _, err := o.stream.sync(ctx); err != nil {
		return err
	}
	return nil
}

// checkTypes fails unless every key is missing or of type want.
func (o *SinkObserver) checkTypes(ctx context.Context, want string, keys ...string) error {
	for _, k := range keys {
		typ, err := o.rdb.Type(ctx, k).Result()
		if err != nil {
			return fmt.Errorf("type of %s: %w", k, err)
		}
		if typ != "none" && typ != want {
			return fmt.Errorf("key %s is a %s; a %s sink needs a %s there (check the sink's keys)", k, typ, o.cfg.Kind, want)
		}
	}
	return nil
}

// Stop drains what the keys hold without blocking, stops following, and
// returns once every goroutine has ended. Start may be called again later;
// it resumes where the observer stopped.
func (o *SinkObserver) Stop() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.running {
		return errors.New("sink observer: not started")
	}
	close(o.stopping)
	o.wg.Wait() // each follower drains, then ends
	o.cancel()
	o.running = false
	return nil
}

// Checkpoint flushes what the keys hold, as Stop does, and follows again
// under the last Start's context, as RedisObserver.Checkpoint does: a
// stream the server restored from an older file, or a list archive it
// lost the end of, is reported by the time it returns.
func (o *SinkObserver) Checkpoint() error {
	return checkpoint("sink observer", o.Stop, o.Start, func() context.Context {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.startCtx
	})
}

// add records a message and signals its first sight.
func (o *SinkObserver) add(a history.Append) {
	o.rec.AddAppend(a)
	id := a.MessageID
	if id == "" {
		id = a.DataJobID
	}
	if id != "" {
		o.fan.publish(Creation{Queue: a.Key, JobID: id, DataJobID: a.DataJobID, Source: SourceSink, At: time.Now().UTC()}, sightData)
	}
}

func (o *SinkObserver) gap(key, detail string) { o.gapKept(key, detail, "") }

// gapKept is gap with what the key still held after Redis lost data
// (history.Gap.Kept).
func (o *SinkObserver) gapKept(key, detail, kept string) {
	o.rec.AddGap(history.Gap{Source: SinkSource(key), At: time.Now().UTC(), Detail: detail, Kept: kept})
}
