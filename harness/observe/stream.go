package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
)

const (
	streamBlock = 300 * time.Millisecond
	streamCount = 1000
)

// streamState is how far one queue's events stream has been read.
type streamState struct {
	queue, key string
	lastID     string // last entry read; "0" before any
	seen       int64  // entries read since the stream was (re)created
	reported   string // newest deleted id already reported as a gap
	deleted    atomic.Bool
}

// streamDeleted is called from the keyspace loop when a queue's events stream
// key is removed; the stream loop reports it on its next check.
func (o *RedisObserver) streamDeleted(q string) {
	for _, st := range o.streams {
		if st.queue == q {
			st.deleted.Store(true)
		}
	}
}

// streamLoop reads every queue's stream until stopped, then drains it.
// Each turn blocks in XREAD until entries arrive (or a short timeout), then
// syncs: reads the rest and checks the streams in one MULTI.
func (o *RedisObserver) streamLoop(ctx context.Context, stopping <-chan struct{}, done chan<- struct{}) {
	defer o.wg.Done()
	defer close(done)
	for ctx.Err() == nil {
		if closed(stopping) {
			o.drainStreams(ctx)
			return
		}
		if _, err := o.readStreams(ctx, streamBlock); err != nil {
			_ = sleep.For(ctx, reconnectBackoff)
			continue
		}
		if _, err := o.syncStreams(ctx); err != nil {
			_ = sleep.For(ctx, reconnectBackoff)
		}
	}
}

// drainStreams syncs until every stream is caught up.
func (o *RedisObserver) drainStreams(ctx context.Context) {
	for i := 0; i < 1000; i++ {
		if caughtUp, err := o.syncStreams(ctx); err != nil || caughtUp {
			return
		}
	}
}

// streamArgs is an XREAD of every stream from the last entry read.
func (o *RedisObserver) streamArgs(block time.Duration) *redis.XReadArgs {
	args := &redis.XReadArgs{Count: streamCount, Block: block}
	for _, st := range o.streams {
		args.Streams = append(args.Streams, st.key)
	}
	for _, st := range o.streams {
		args.Streams = append(args.Streams, st.lastID)
	}
	return args
}

// readStreams waits up to block for new entries and records them.
func (o *RedisObserver) readStreams(ctx context.Context, block time.Duration) (int, error) {
	res, err := o.rdb.XRead(ctx, o.streamArgs(block)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("read events streams: %w", err)
	}
	n := 0
	for _, c := range o.record(res) {
		n += c
	}
	return n, nil
}

// record records the entries read and returns how many per stream.
func (o *RedisObserver) record(res []redis.XStream) map[*streamState]int {
	counts := map[*streamState]int{}
	for _, s := range res {
		st := o.streamByKey(s.Stream)
		if st == nil {
			continue
		}
		for _, msg := range s.Messages {
			e := streamEntry(st.queue, msg)
			o.rec.AddStream(e)
			if e.Event == "added" && e.JobID != "" {
				o.fan.publish(Creation{Queue: e.Queue, JobID: e.JobID, Source: SourceStream, At: time.Now().UTC()}, sightID)
			}
			st.lastID = msg.ID
			st.seen++
		}
		counts[st] += len(s.Messages)
	}
	return counts
}

// syncStreams reads the entries after the last ones read and XINFO of every
// stream atomically (MULTI), records the entries, and records a Gap for each
// loss found (see check). It reports whether every stream was caught up.
func (o *RedisObserver) syncStreams(ctx context.Context) (bool, error) {
	before := make([]string, len(o.streams))
	for i, st := range o.streams {
		before[i] = st.lastID
	}
	pipe := o.rdb.TxPipeline()
	read := pipe.XRead(ctx, o.streamArgs(-1))
	infos := make([]*redis.XInfoStreamCmd, len(o.streams))
	for i, st := range o.streams {
		infos[i] = pipe.XInfoStream(ctx, st.key)
	}
	_, _ = pipe.Exec(ctx) // errors are per command
	res, err := read.Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, fmt.Errorf("sync events streams: %w", err)
	}
	counts := o.record(res)
	caughtUp := true
	for i, st := range o.streams {
		info, err := infos[i].Result()
		missing := err != nil && strings.Contains(err.Error(), "no such key")
		if err != nil && !missing {
			return false, fmt.Errorf("sync events stream %s: %w", st.key, err)
		}
		complete := counts[st] < streamCount
		caughtUp = caughtUp && complete
		if detail := st.check(info, missing, complete, before[i]); detail != "" {
			o.rec.AddGap(history.Gap{Source: StreamSource(st.queue), At: time.Now().UTC(), Detail: detail})
		}
	}
	return caughtUp, nil
}

func (o *RedisObserver) streamByKey(key string) *streamState {
	for _, st := range o.streams {
		if st.key == key {
			return st
		}
	}
	return nil
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

// check compares a stream's XINFO, taken in the same MULTI as a read of
// everything after lastBefore, with what was read; it returns why entries
// may have been lost, or "". complete is false when that read hit its COUNT.
func (st *streamState) check(info *redis.XInfoStream, missing, complete bool, lastBefore string) string {
	deleted := st.deleted.Swap(false)
	switch {
	case missing && (st.seen > 0 || deleted):
		st.seen = 0
		return fmt.Sprintf("stream %s is gone (deleted, or Redis lost its data) after %s: entries not read before are lost", st.key, st.lastID)
	case missing:
		return ""
	case deleted:
		st.seen = info.EntriesAdded
		return fmt.Sprintf("stream %s was deleted and recreated: entries after %s may be lost", st.key, lastBefore)
	case newer(st.lastID, info.LastGeneratedID):
		last := st.lastID
		st.lastID, st.seen, st.reported = "0", 0, ""
		return fmt.Sprintf("stream %s went back (last id %s, read up to %s): it was recreated; entries may be lost", st.key, info.LastGeneratedID, last)
	case info.EntriesAdded > 0 && info.EntriesAdded < st.seen:
		st.seen = info.EntriesAdded
		return fmt.Sprintf("stream %s was recreated (entries-added %d, more were read): entries may be lost", st.key, info.EntriesAdded)
	case info.MaxDeletedEntryID == "": // before Redis 7.0: no entries-added
		return st.checkOldTrim(info, lastBefore)
	}
	return st.checkLost(info, complete)
}

// checkLost (Redis 7.0+): entries are read in id order, so every entry added
// and not read (entries-added minus seen) is newer than the last one read;
// a complete read returned every one the stream still holds. Any left over
// were trimmed or deleted before the reader saw them.
func (st *streamState) checkLost(info *redis.XInfoStream, complete bool) string {
	lost := info.EntriesAdded - st.seen
	if !complete || lost <= 0 {
		return ""
	}
	st.seen = info.EntriesAdded
	return fmt.Sprintf("stream %s was trimmed past the reader: %d entries after %s were deleted unread", st.key, lost, st.lastID)
}

// checkOldTrim is the check for servers without entries-added: the oldest
// entry being newer than the last one read before this sync means the
// reader's position was trimmed away, and entries after it may have gone too.
func (st *streamState) checkOldTrim(info *redis.XInfoStream, lastBefore string) string {
	first := info.FirstEntry.ID
	if lastBefore != "0" && first != "" && newer(first, lastBefore) && newer(first, st.reported) {
		st.reported = first
		return fmt.Sprintf("stream %s may have been trimmed past the reader: its oldest entry %s is newer than the last read %s", st.key, first, lastBefore)
	}
	return ""
}
