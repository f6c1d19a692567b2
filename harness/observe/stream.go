package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
)

const (
	streamBlock = 300 * time.Millisecond
	streamCount = 1000
)

// streamState is how far one stream has been read.
type streamState struct {
	name, key string // name labels its gaps: the queue, or the sink key
	lastID    string // last entry read; "0" before any
	seen      int64  // entries read since the stream was (re)created
	reported  string // newest deleted id already reported as a gap
	deleted   atomic.Bool
	marked    bool // the reader's marker group was put on the stream
	// kept is, after the stream went back, the last id it still holds,
	// until the gap reporting it takes it (takeKept).
	kept string
}

// takeKept returns and clears kept.
func (st *streamState) takeKept() string {
	k := st.kept
	st.kept = ""
	return k
}

// streamReader follows streams with XREAD BLOCK, never consuming or
// trimming, and checks them for loss after every read: the BullMQ events
// streams and the stream sinks share it (package doc).
type streamReader struct {
	rdb     *redis.Client
	streams []*streamState
	what    string // names the streams in errors: "events streams"
	// marker, when set, is a consumer group the reader keeps on every
	// stream as its identity (nothing is ever read through it): a stream
	// without it was deleted since the last sync. Readers without a
	// keyspace subscription to tell them of deletions use it.
	marker string
	// restarts, when set, watches the server's run_id in every sync.
	restarts *restartWatch
	onEntry  func(st *streamState, msg redis.XMessage)
	onGap    func(st *streamState, detail string)
}

// loop reads every stream until stopped, then drains them. Each turn
// blocks in XREAD until entries arrive (or a short timeout), then syncs:
// reads the rest and checks the streams in one MULTI.
func (r *streamReader) loop(ctx context.Context, stopping <-chan struct{}) {
	for ctx.Err() == nil {
		if closed(stopping) {
			r.drain(ctx)
			return
		}
		if _, err := r.read(ctx, streamBlock); err != nil {
			_ = sleep.For(ctx, reconnectBackoff)
			continue
		}
		if _, err := r.sync(ctx); err != nil {
			_ = sleep.For(ctx, reconnectBackoff)
		}
	}
}

// drain syncs until every stream is caught up.
func (r *streamReader) drain(ctx context.Context) {
	for i := 0; i < 1000; i++ {
		if caughtUp, err := r.sync(ctx); err != nil || caughtUp {
			return
		}
	}
}

// args is an XREAD of every stream from the last entry read.
func (r *streamReader) args(block time.Duration) *redis.XReadArgs {
	args := &redis.XReadArgs{Count: streamCount, Block: block}
	for _, st := range r.streams {
		args.Streams = append(args.Streams, st.key)
	}
	for _, st := range r.streams {
		args.Streams = append(args.Streams, st.lastID)
	}
	return args
}

// read waits up to block for new entries and records them.
func (r *streamReader) read(ctx context.Context, block time.Duration) (int, error) {
	res, err := r.rdb.XRead(ctx, r.args(block)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("read %s: %w", r.what, err)
	}
	n := 0
	for _, c := range r.record(res) {
		n += c
	}
	return n, nil
}

// record hands the entries read to onEntry and returns how many per stream.
func (r *streamReader) record(res []redis.XStream) map[*streamState]int {
	counts := map[*streamState]int{}
	for _, s := range res {
		st := r.byKey(s.Stream)
		if st == nil {
			continue
		}
		for _, msg := range s.Messages {
			r.onEntry(st, msg)
			st.lastID = msg.ID
			st.seen++
		}
		counts[st] += len(s.Messages)
	}
	return counts
}

// syncCmds are the replies of one sync's MULTI.
type syncCmds struct {
	read    *redis.XStreamSliceCmd
	infos   []*redis.XInfoStreamCmd
	groups  []*redis.XInfoGroupsCmd // with a marker
	creates []*redis.StatusCmd      // with a marker
	server  *redis.StringCmd        // with a restart watch
}

// sync reads the entries after the last ones read and XINFO of every
// stream atomically (MULTI), with the marker groups and the server's
// run_id when the reader keeps them, records the entries, and reports a
// gap for each loss found (see check). It reports whether every stream was
// caught up.
func (r *streamReader) sync(ctx context.Context) (bool, error) {
	before := make([]string, len(r.streams))
	for i, st := range r.streams {
		before[i] = st.lastID
	}
	cmds := r.queueSync(ctx)
	res, err := cmds.read.Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, fmt.Errorf("sync %s: %w", r.what, err)
	}
	if err := r.checkRestart(ctx, cmds); err != nil {
		return false, err
	}
	counts := r.record(res)
	caughtUp := true
	for i, st := range r.streams {
		if err := r.checkMarker(st, cmds, i); err != nil {
			return false, err
		}
		info, err := cmds.infos[i].Result()
		missing := isNoSuchKey(err)
		if err != nil && !missing {
			return false, fmt.Errorf("sync %s %s: %w", r.what, st.key, err)
		}
		complete := counts[st] < streamCount
		caughtUp = caughtUp && complete
		if detail := st.check(info, missing, complete, before[i]); detail != "" {
			r.onGap(st, detail)
		}
	}
	return caughtUp, nil
}

// queueSync sends one sync's MULTI. Errors are per command.
func (r *streamReader) queueSync(ctx context.Context) syncCmds {
	pipe := r.rdb.TxPipeline()
	cmds := syncCmds{read: pipe.XRead(ctx, r.args(-1))}
	for _, st := range r.streams {
		cmds.infos = append(cmds.infos, pipe.XInfoStream(ctx, st.key))
		if r.marker != "" {
			// Read the marker, then put it back (a no-op while it is there):
			// the stream is marked from this sync on, atomically.
			cmds.groups = append(cmds.groups, pipe.XInfoGroups(ctx, st.key))
			cmds.creates = append(cmds.creates, pipe.XGroupCreateMkStream(ctx, st.key, r.marker, "$"))
		}
	}
	if r.restarts != nil {
		cmds.server = pipe.Info(ctx, "server")
	}
	_, _ = pipe.Exec(ctx)
	return cmds
}

// checkMarker marks st deleted when the marker group it carried is gone.
func (r *streamReader) checkMarker(st *streamState, cmds syncCmds, i int) error {
	if r.marker == "" {
		return nil
	}
	groups, err := cmds.groups[i].Result()
	if err != nil && !isNoSuchKey(err) {
		return fmt.Errorf("sync %s %s: read the marker group: %w", r.what, st.key, err)
	}
	if err := cmds.creates[i].Err(); err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("sync %s %s: put the marker group %s: %w", r.what, st.key, r.marker, err)
	}
	present := false
	for _, g := range groups {
		present = present || g.Name == r.marker
	}
	if st.marked && !present {
		st.deleted.Store(true)
	}
	st.marked = true
	return nil
}

// checkRestart reports a restart the server cannot prove lossless as a gap
// of every stream.
func (r *streamReader) checkRestart(ctx context.Context, cmds syncCmds) error {
	if r.restarts == nil {
		return nil
	}
	info, err := cmds.server.Result()
	if err != nil {
		return fmt.Errorf("sync %s: INFO server: %w", r.what, err)
	}
	if detail := r.restarts.check(ctx, r.rdb, info); detail != "" {
		for _, st := range r.streams {
			r.onGap(st, fmt.Sprintf("stream %s: %s", st.key, detail))
		}
	}
	return nil
}

func (r *streamReader) byKey(key string) *streamState {
	for _, st := range r.streams {
		if st.key == key {
			return st
		}
	}
	return nil
}

func isNoSuchKey(err error) bool { return err != nil && strings.Contains(err.Error(), "no such key") }

// check compares a stream's XINFO, taken in the same MULTI as a read of
// everything after lastBefore, with what was read; it returns why entries
// may have been lost, or "". complete is false when that read hit its COUNT.
func (st *streamState) check(info *redis.XInfoStream, missing, complete bool, lastBefore string) string {
	deleted := st.deleted.Swap(false)
	switch {
	case missing && (st.seen > 0 || deleted):
		last := st.lastID
		st.lastID, st.seen, st.reported = "0", 0, "" // a stream made anew is read from its start
		return fmt.Sprintf("stream %s is gone (deleted, or Redis lost its data) after %s: entries not read before are lost", st.key, last)
	case missing:
		return ""
	case deleted:
		st.seen = info.EntriesAdded
		return fmt.Sprintf("stream %s was deleted and recreated: entries after %s may be lost", st.key, lastBefore)
	case newer(st.lastID, info.LastGeneratedID):
		last := st.lastID
		st.lastID, st.seen, st.reported, st.kept = "0", 0, "", info.LastGeneratedID
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
