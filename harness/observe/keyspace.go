package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
)

// keyspaceLoop receives keyspace notifications until stopped. A receive error
// is a lost connection: one Gap per outage, then go-redis reconnects and
// resubscribes on the next receive. go-redis may also reconnect behind the
// loop's back, when a heartbeat PING finds the connection broken: then the
// loop reads no error, only the confirmations of the resubscription. So a
// resubscription (a confirmation counting one subscription; the first
// subscription's confirmations are read by Start) always means the
// connection was lost: it records the Gap if no error did, re-enables
// notifications on the (possibly restarted) server and rescans the job
// hashes. One PSUBSCRIBE carries every pattern, and the server subscribes
// them all at once, so the first confirmation means notifications flow
// again for every queue.
//
// The Gap is dated when nothing was lost yet for sure: the send time of the
// last heartbeat PONG read (or the subscription), not when the loss is
// noticed. A loop busy with a backlog (reading job hashes from a server that
// went away, say) notices late, after the server may be back and writing
// with its notifications off.
func (o *RedisObserver) keyspaceLoop(ctx context.Context, ps *redis.PubSub, since time.Time, stopping <-chan struct{}, done chan<- struct{}) {
	defer o.wg.Done()
	defer close(done)
	down := false
	caughtUp := since // every notification sent before it was read
	for {
		msg, err := ps.Receive(ctx)
		if err != nil {
			if closed(stopping) || ctx.Err() != nil {
				return
			}
			if !down {
				down = true
				o.lost(caughtUp, fmt.Sprintf("pub/sub connection lost (%v)", err))
			}
			if sleep.For(ctx, reconnectBackoff) != nil {
				return
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Count != 1 {
				continue // the rest of one resubscription
			}
			if !down {
				o.lost(caughtUp, "pub/sub connection lost and re-established by a heartbeat PING")
			}
			down, caughtUp = false, time.Now().UTC()
			o.reconfigure(ctx)
			o.rescan(ctx)
		case *redis.Message:
			o.onKeyEvent(ctx, m)
		case *redis.Pong:
			if m.Payload == flushToken {
				return
			}
			if t, ok := heartbeatSent(m.Payload); ok {
				caughtUp = t
			}
		}
	}
}

// lost records a keyspace Gap from caughtUp, the last moment up to which
// every notification was read.
func (o *RedisObserver) lost(caughtUp time.Time, what string) {
	o.rec.AddGap(history.Gap{Source: SourceKeyspace, At: caughtUp,
		Detail: fmt.Sprintf("%s, noticed at %s; notifications after the last heartbeat answered, until it is back, are missing",
			what, time.Now().UTC().Format(time.RFC3339Nano))})
}

// reconfigure sets notify-keyspace-events again after a reconnect; a restarted
// Redis has forgotten it. It retries for a while and records a Gap if it
// cannot.
func (o *RedisObserver) reconfigure(ctx context.Context) {
	var err error
	for i := 0; i < 50; i++ {
		if err = o.configure(ctx); err == nil {
			return
		}
		if sleep.For(ctx, reconnectBackoff) != nil {
			return
		}
	}
	o.rec.AddGap(history.Gap{Source: SourceKeyspace, At: time.Now().UTC(),
		Detail: fmt.Sprintf("could not re-enable keyspace notifications after a reconnect: %v", err)})
}

// onKeyEvent records one notification about a key under a watched queue.
func (o *RedisObserver) onKeyEvent(ctx context.Context, m *redis.Message) {
	q, ok := o.byPattern[m.Pattern]
	if !ok {
		return
	}
	_, key, ok := strings.Cut(m.Channel, "__:")
	if !ok {
		return
	}
	if key == o.base(q)+"events" {
		if isRemoval(m.Payload) {
			o.streamDeleted(q)
		}
		return
	}
	if name, ok := pushedStructure(o.base(q), key, m.Payload); ok {
		o.signalPushed(ctx, q, name, key, m.Payload)
		return
	}
	id, ok := jobIDFromKey(o.base(q), key)
	if !ok {
		return
	}
	if note := o.classify(key, m.Payload); note != "" {
		o.recordKey(ctx, q, id, key, note)
	}
}

func isRemoval(event string) bool {
	switch event {
	case "del", "expired", "evicted", "rename_from", "move_from":
		return true
	}
	return false
}

// classify turns a notification into the KeyNote event to record, or "".
func (o *RedisObserver) classify(key, event string) string {
	justCreated := o.created[key]
	delete(o.created, key)
	switch {
	case isRemoval(event):
		delete(o.known, key)
		return "del"
	case event == "new":
		o.created[key] = true
		return "new"
	case !o.newEvents && !o.known[key] && isCreation(event):
		o.known[key] = true
		return "new"
	case justCreated && isHashWrite(event):
		return "" // the write that created the key, recorded as "new"
	case event == "hset" || event == "hdel":
		return event
	}
	return ""
}

func isHashWrite(event string) bool {
	switch event {
	case "hset", "hdel", "hincrby", "hincrbyfloat":
		return true
	}
	return false
}

// isCreation reports whether event can bring a key into existence.
func isCreation(event string) bool {
	switch event {
	case "hset", "hincrby", "hincrbyfloat", "rename_to", "copy_to", "restore", "move_to":
		return true
	}
	return false
}

// recordKey reads the hash's data and opts and records the note. A key that
// turns out not to be a hash is not a job and is skipped.
func (o *RedisObserver) recordKey(ctx context.Context, q, id, key, event string) {
	note := history.KeyNote{Queue: q, JobID: id, Event: event, At: time.Now().UTC()}
	if event != "del" {
		vals, err := o.rdb.HMGet(ctx, key, "data", "opts", "timestamp").Result()
		switch {
		case err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE"):
			return
		case err != nil && !errors.Is(err, context.Canceled):
			o.rec.AddGap(history.Gap{Source: SourceKeyspace, At: note.At,
				Detail: fmt.Sprintf("could not read job hash %s after %q: %v", key, event, err)})
		case err == nil:
			note.Data, note.Opts, note.Stamp = str(vals[0]), str(vals[1]), str(vals[2])
			note.DataJobID = history.DataJobID(note.Data)
		}
	}
	note.Event = o.restamp(key, note)
	o.rec.AddKey(note)
	o.signalNote(note)
}

// restamp tells a creation from a reload. A Redis restarted with an
// append-only file replays every write, and with them the "new"
// notifications of jobs that already existed; such a job comes back with
// the creation stamp (its hash's timestamp field) it had. A "new" with a
// stamp already seen for the key is recorded as EventReload, a read.
func (o *RedisObserver) restamp(key string, note history.KeyNote) string {
	if note.Stamp == "" || (note.Event != "new" && note.Event != EventScan) {
		return note.Event
	}
	if o.stamps == nil {
		o.stamps = map[string]string{}
	}
	seen := o.stamps[key] == note.Stamp
	o.stamps[key] = note.Stamp
	if note.Event == "new" && seen {
		return EventReload
	}
	return note.Event
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
