package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

const (
	// SourceKeyspace is the Gap source for keyspace notifications.
	SourceKeyspace = "keyspace"
	// streamSourcePrefix + queue is the Gap source for a queue's events stream.
	streamSourcePrefix = "stream:"

	reconnectBackoff = 100 * time.Millisecond
	subscribeTimeout = 10 * time.Second
	flushTimeout     = 10 * time.Second
	flushToken       = "outboxchaos-observer-flush"
)

// StreamSource is the Gap source naming queue's events stream.
func StreamSource(queue string) string { return streamSourcePrefix + queue }

// RedisObserver follows BullMQ queues in a harness-owned Redis: keyspace
// notifications for job hashes and each queue's events stream. See the
// package doc for what it records and when it records a Gap.
type RedisObserver struct {
	rdb    *redis.Client
	prefix string
	queues []string
	rec    *history.Recorder

	mu        sync.Mutex // guards the lifecycle fields below
	running   bool
	stoppedAt time.Time
	startCtx  context.Context // the last Start's, for Checkpoint
	cancel    context.CancelFunc
	stopping  chan struct{}
	ps        *redis.PubSub
	wg        sync.WaitGroup
	ksDone    chan struct{}
	stDone    chan struct{}

	// Keyspace state, owned by the keyspace goroutine (and Start before it).
	newEvents bool            // the server sends "new" key events
	created   map[string]bool // "new" seen, its creating write not yet
	known     map[string]bool // keys known to exist, without "new" events
	byPattern map[string]string
	stamps    map[string]string // job key -> creation stamp last seen (never forgotten)

	// The events streams' reader, owned by the stream goroutine; its state
	// is kept across Stop/Start.
	events *streamReader

	// fan signals each job's first sight to subscribers (signal.go).
	fan fanout
}

// NewRedisObserver returns an observer of queues under prefix. rdb must be a
// direct connection to a Redis the harness owns: Start reconfigures it.
func NewRedisObserver(rdb *redis.Client, prefix string, queues []string, rec *history.Recorder) *RedisObserver {
	o := &RedisObserver{rdb: rdb, prefix: prefix, queues: append([]string(nil), queues...), rec: rec,
		created: map[string]bool{}, known: map[string]bool{}, byPattern: map[string]string{}}
	o.events = o.eventsReader()
	return o
}

func (o *RedisObserver) validate() error {
	if o.rdb == nil {
		return errors.New("redis observer: client is nil; pass a direct *redis.Client")
	}
	if o.prefix == "" {
		return errors.New("redis observer: prefix is empty; use the BullMQ key prefix (\"bull\")")
	}
	if o.rec == nil {
		return errors.New("redis observer: recorder is nil; pass the run's history.Recorder")
	}
	if len(o.queues) == 0 {
		return errors.New("redis observer: no queues; name at least one")
	}
	for _, q := range o.queues {
		if q == "" || strings.Contains(q, ":") {
			return fmt.Errorf("redis observer: queue name %q: use a non-empty name without ':'", q)
		}
	}
	return nil
}

// base is the key prefix of queue q's keys: "<prefix>:<q>:".
func (o *RedisObserver) base(q string) string { return o.prefix + ":" + q + ":" }

// Start enables keyspace notifications, subscribes, and starts following the
// streams. It returns once the subscriptions are confirmed. The observer runs
// until Stop or until ctx ends.
func (o *RedisObserver) Start(ctx context.Context) error {
	if err := o.validate(); err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.running {
		return errors.New("redis observer: already started; call Stop first")
	}
	if err := o.configure(ctx); err != nil {
		return err
	}
	subscribing := time.Now().UTC()
	ps, err := o.subscribe(ctx)
	if err != nil {
		return err
	}
	if !o.stoppedAt.IsZero() {
		o.rec.AddGap(history.Gap{Source: SourceKeyspace, At: o.stoppedAt,
			Detail: fmt.Sprintf("observer stopped from %s until %s: notifications in between are missing",
				o.stoppedAt.Format(time.RFC3339Nano), time.Now().UTC().Format(time.RFC3339Nano))})
		o.rescan(ctx) // subscribed already: a key written from now on is notified
	}
	runCtx, cancel := context.WithCancel(ctx)
	o.running, o.cancel, o.ps, o.startCtx = true, cancel, ps, ctx
	o.stopping, o.ksDone, o.stDone = make(chan struct{}), make(chan struct{}), make(chan struct{})
	o.wg.Add(4)
	go o.keyspaceLoop(runCtx, ps, subscribing, o.stopping, o.ksDone)
	go o.heartbeat(runCtx, ps, o.stopping)
	go o.streamLoop(runCtx, o.stopping, o.stDone)
	go func() { // a caller's cancel unblocks the pub/sub read
		defer o.wg.Done()
		<-runCtx.Done()
		_ = ps.Close()
	}()
	return nil
}

// subscribe subscribes to every queue's keyspace channels and waits for the
// confirmations.
func (o *RedisObserver) subscribe(ctx context.Context) (*redis.PubSub, error) {
	chanPrefix := fmt.Sprintf("__keyspace@%d__:", o.rdb.Options().DB)
	var patterns []string
	for _, q := range o.queues {
		p := chanPrefix + globEscape(o.base(q)) + "*"
		o.byPattern[p] = q
		patterns = append(patterns, p)
	}
	ps := o.rdb.PSubscribe(ctx, patterns...)
	for confirmed := 0; confirmed < len(patterns); {
		msg, err := ps.ReceiveTimeout(ctx, subscribeTimeout)
		if err != nil {
			_ = ps.Close()
			return nil, fmt.Errorf("redis observer: subscribe to keyspace notifications: %w", err)
		}
		if _, ok := msg.(*redis.Subscription); ok {
			confirmed++
		}
	}
	return ps, nil
}

// configure adds the notification classes the observer needs to the
// server's notify-keyspace-events, keeping the ones already set.
func (o *RedisObserver) configure(ctx context.Context) error {
	cur, err := o.rdb.ConfigGet(ctx, "notify-keyspace-events").Result()
	if err != nil {
		return fmt.Errorf("redis observer: read notify-keyspace-events: %w", err)
	}
	flags := addFlags(cur["notify-keyspace-events"], "Kghxelz")
	if err := o.rdb.ConfigSet(ctx, "notify-keyspace-events", addFlags(flags, "n")).Err(); err == nil {
		o.newEvents = true
		return nil
	}
	// Before Redis 7.0 there is no "n" class: fall back to tracking keys.
	if err := o.rdb.ConfigSet(ctx, "notify-keyspace-events", flags).Err(); err != nil {
		return fmt.Errorf("redis observer: CONFIG SET notify-keyspace-events %q (the observer needs a Redis it may configure): %w", flags, err)
	}
	o.newEvents = false
	return o.seedKnown(ctx)
}

// addFlags adds to flags each class in want it lacks; "A" already holds g, h,
// x, e, l and z.
func addFlags(flags, want string) string {
	for _, c := range want {
		covered := strings.ContainsRune(flags, c) || (strings.ContainsRune(flags, 'A') && strings.ContainsRune("ghxelz", c))
		if !covered {
			flags += string(c)
		}
	}
	return flags
}

// seedKnown lists the job hashes that exist now, for servers without "new"
// events.
func (o *RedisObserver) seedKnown(ctx context.Context) error {
	clear(o.known)
	for _, q := range o.queues {
		keys, err := scanJobKeys(ctx, o.rdb, o.base(q))
		if err != nil {
			return fmt.Errorf("redis observer: %w", err)
		}
		for _, k := range keys {
			o.known[k] = true
		}
	}
	return nil
}

// Stop flushes what the servers already sent, stops following, and returns
// once every goroutine has ended. Start may be called again later.
func (o *RedisObserver) Stop() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.running {
		return errors.New("redis observer: not started")
	}
	close(o.stopping)
	pingCtx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := o.ps.Ping(pingCtx, flushToken); err == nil {
		select { // the keyspace loop ends when the PING comes back
		case <-o.ksDone:
		case <-pingCtx.Done():
		}
	}
	_ = o.ps.Close()
	<-o.stDone // the stream loop drains the streams, then ends
	o.cancel()
	o.wg.Wait()
	o.running = false
	o.stoppedAt = time.Now().UTC()
	return nil
}

// Checkpoint flushes what the server already sent, as Stop does, and
// follows again under the last Start's context, as Start after Stop does:
// a keyspace Gap for the moment in between, and a rescan. The stream
// reader syncs every stream before it stops, so a stream the server lost
// or restored from an older file is reported by the time Checkpoint
// returns. The nemesis calls it while no instance can reach Redis, so that
// what the observer recorded is all there was.
func (o *RedisObserver) Checkpoint() error {
	return checkpoint("redis observer", o.Stop, o.Start, func() context.Context {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.startCtx
	})
}

// checkpoint is an observer's Checkpoint: stop, then start again under
// the context the last Start had (lastCtx).
func checkpoint(what string, stop func() error, start func(context.Context) error, lastCtx func() context.Context) error {
	if err := stop(); err != nil {
		return fmt.Errorf("%s checkpoint: %w", what, err)
	}
	if err := start(lastCtx()); err != nil {
		return fmt.Errorf("%s checkpoint: %w", what, err)
	}
	return nil
}
