package observe

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Sources of a Creation: what showed the job first.
const (
	SourceStream = "stream" // an "added" entry of the queue's events stream
	SourceHash   = "hash"   // a new job hash (keyspace notification)
	SourceRescan = "scan"   // a job hash found by the rescan after a gap
	// A push into wait, paused, prioritized or delayed carries the
	// structure's name as its source.
)

// Creation is the observer's first sight of a job in Redis: what a window
// or pause trap waits for. It is a signal for live traps, not a record: the
// history keeps the stream entries and key notes themselves.
type Creation struct {
	Queue     string
	JobID     string // the BullMQ id
	DataJobID string // data.jobId, when the job's data was read and has one
	Source    string
	At        time.Time // harness time when the observer saw it
}

// Jobs returns the ai_jobs ids the job may stand for (history.JobCandidates).
func (c Creation) Jobs() []string { return history.JobCandidates(c.JobID, c.DataJobID) }

// Sight levels: what the observer knows of a job already signalled.
const (
	sightNone = iota
	sightID   // id only (a stream entry, an id in a list)
	sightData // its data was read
)

type sightKey struct{ queue, id string }

// fanout hands Creations to subscribers without ever blocking the
// observer: a subscriber whose buffer is full misses the signal, and its
// Dropped count says so. A job is signalled when first seen, and once more
// if a later sight reads the data.jobId the first one lacked; a deleted job
// is forgotten, so a job re-added after its key is gone is signalled again.
type fanout struct {
	mu    sync.Mutex
	subs  map[*Subscription]struct{}
	sight map[sightKey]int
}

// Subscription receives Creations on C until Close.
type Subscription struct {
	C       <-chan Creation
	ch      chan Creation
	f       *fanout
	dropped atomic.Int64
}

// Subscribe returns a subscription to the jobs the observer sees from now
// on, with a channel buffer of buffer signals (at least 1). Close it when
// done. Safe to call from any goroutine, before or after Start.
func (o *RedisObserver) Subscribe(buffer int) *Subscription {
	return o.fan.subscribe(buffer)
}

func (f *fanout) subscribe(buffer int) *Subscription {
	if buffer < 1 {
		buffer = 1
	}
	ch := make(chan Creation, buffer)
	s := &Subscription{C: ch, ch: ch, f: f}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = map[*Subscription]struct{}{}
	}
	f.subs[s] = struct{}{}
	return s
}

// Close ends the subscription and closes C. Closing twice is harmless.
func (s *Subscription) Close() {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	if _, ok := s.f.subs[s]; ok {
		delete(s.f.subs, s)
		close(s.ch)
	}
}

// Dropped is how many signals the subscription missed with a full buffer.
func (s *Subscription) Dropped() int64 { return s.dropped.Load() }

// active reports whether anyone listens; the observer skips reads done only
// for the signal (list and zset pushes) when no one does.
func (f *fanout) active() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs) > 0
}

// publish signals c unless the job was already signalled with as much.
func (f *fanout) publish(c Creation, level int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := sightKey{c.Queue, c.JobID}
	if f.sight == nil {
		f.sight = map[sightKey]int{}
	}
	if f.sight[k] >= level {
		return
	}
	f.sight[k] = level
	for s := range f.subs {
		select {
		case s.ch <- c:
		default:
			s.dropped.Add(1)
		}
	}
}

// seen reports whether the job was signalled already.
func (f *fanout) seen(queue, id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sight[sightKey{queue, id}] > sightNone
}

// forget drops a deleted job.
func (f *fanout) forget(queue, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sight, sightKey{queue, id})
}
