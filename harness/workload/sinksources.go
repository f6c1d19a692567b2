package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
	"github.com/outboxchaos/outboxchaos/harness/sink"
)

// StreamGroup is the consumer group the harness's consumer reads a stream
// sink with.
const StreamGroup = "outboxchaos"

const (
	streamTakeBlock = 100 * time.Millisecond // an XREADGROUP's wait
	archivePoll     = 50 * time.Millisecond  // an idle archive's re-read
)

// streamSource reads a stream sink with XREADGROUP and XACK.
type streamSource struct {
	rdb *redis.Client
	cfg sink.Config
}

// prepare creates the group on every stream from its first entry (and the
// stream, when the dispatcher has not yet).
func (s *streamSource) prepare(ctx context.Context) error {
	for _, k := range s.cfg.Keys {
		err := s.rdb.XGroupCreateMkStream(ctx, k, StreamGroup, "0").Err()
		if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return fmt.Errorf("create consumer group %s on stream %s: %w", StreamGroup, k, err)
		}
	}
	return nil
}

// take reads one new entry of the turn's stream (the streams in turn, as
// the BullMQ consumer polls its queues) for the worker. A group lost with
// its stream (deleted, or a Redis that lost its data) is created again.
func (s *streamSource) take(ctx context.Context, worker string, turn int) (delivery, bool, error) {
	key := s.cfg.Keys[turn%len(s.cfg.Keys)]
	res, err := s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: StreamGroup, Consumer: worker, Streams: []string{key, ">"},
		Count: 1, Block: streamTakeBlock}).Result()
	if errors.Is(err, redis.Nil) {
		return delivery{}, false, nil
	}
	if err != nil && strings.HasPrefix(err.Error(), "NOGROUP") {
		if perr := s.prepare(ctx); perr != nil {
			return delivery{}, false, perr
		}
		return delivery{}, false, fmt.Errorf("read streams as group %s: %w (the group is created again)", StreamGroup, err)
	}
	if err != nil {
		return delivery{}, false, fmt.Errorf("read streams as group %s: %w", StreamGroup, err)
	}
	for _, st := range res {
		for _, msg := range st.Messages {
			return delivery{key: st.Stream, id: msg.ID, msg: s.cfg.Entry(msg.Values)}, true, nil
		}
	}
	return delivery{}, false, nil
}

func (s *streamSource) done(ctx context.Context, d delivery) error {
	if err := s.rdb.XAck(ctx, d.key, StreamGroup, d.id).Err(); err != nil {
		return fmt.Errorf("XACK %s %s: %w", d.key, d.id, err)
	}
	return nil
}

// idle: on every stream that holds entries, the group has none pending
// and none left to deliver (its lag is 0; where Redis cannot tell the lag,
// it was delivered the last entry).
func (s *streamSource) idle(ctx context.Context) (bool, error) {
	for _, k := range s.cfg.Keys {
		info, err := s.rdb.XInfoStream(ctx, k).Result()
		if err != nil && strings.Contains(err.Error(), "no such key") {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("XINFO STREAM %s: %w", k, err)
		}
		if info.Length == 0 {
			continue
		}
		groups, err := s.rdb.XInfoGroups(ctx, k).Result()
		if err != nil {
			return false, fmt.Errorf("XINFO GROUPS %s: %w", k, err)
		}
		if !groupIdle(groups, info.LastEntry.ID) {
			return false, nil
		}
	}
	return true, nil
}

func groupIdle(groups []redis.XInfoGroup, lastEntry string) bool {
	for _, g := range groups {
		if g.Name == StreamGroup {
			return g.Pending == 0 && (g.Lag == 0 || (g.Lag < 0 && g.LastDeliveredID == lastEntry))
		}
	}
	return false
}

// archiveSource reads a list sink's archive (sink.Archive) in order: the
// harness's mover is the list's only reader, so the consumer takes what
// it moved, each element once.
type archiveSource struct {
	rdb  *redis.Client
	cfg  sink.Config
	mu   sync.Mutex
	next map[string]int64 // the archive index to take next, per key
}

func (s *archiveSource) prepare(context.Context) error { return nil }

// take takes the next archived element of the first key that has one, or
// waits archivePoll when none has.
func (s *archiveSource) take(ctx context.Context, _ string, _ int) (delivery, bool, error) {
	for _, k := range s.cfg.Keys {
		d, ok, err := s.takeFrom(ctx, k)
		if err != nil || ok {
			return d, ok, err
		}
	}
	_ = sleep.For(ctx, archivePoll)
	return delivery{}, false, nil
}

func (s *archiveSource) takeFrom(ctx context.Context, key string) (delivery, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	archive := sink.Archive(key)
	elem, err := s.rdb.LIndex(ctx, archive, s.next[key]).Result()
	if errors.Is(err, redis.Nil) {
		// An archive shorter than what was taken lost elements with its
		// data (the observer records that gap): go on from its end.
		n, err := s.rdb.LLen(ctx, archive).Result()
		if err != nil {
			return delivery{}, false, fmt.Errorf("length of archive %s: %w", archive, err)
		}
		s.next[key] = min(s.next[key], n)
		return delivery{}, false, nil
	}
	if err != nil {
		return delivery{}, false, fmt.Errorf("read archive %s: %w", archive, err)
	}
	s.next[key]++
	return delivery{key: key, msg: s.cfg.Element(elem)}, true, nil
}

func (s *archiveSource) done(context.Context, delivery) error { return nil }

// idle: every archive was taken to its end.
func (s *archiveSource) idle(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.cfg.Keys {
		n, err := s.rdb.LLen(ctx, sink.Archive(k)).Result()
		if err != nil {
			return false, fmt.Errorf("length of archive %s: %w", sink.Archive(k), err)
		}
		if s.next[k] < n {
			return false, nil
		}
	}
	return true, nil
}
