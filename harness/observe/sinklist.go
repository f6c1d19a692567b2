package observe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/internal/sleep"
)

const (
	moveBatch = 100                    // elements one turn moves at most
	moveBlock = 100 * time.Millisecond // a BLMOVE's wait on an empty list
)

// moveScript moves up to ARGV[2] elements from KEYS[1]'s ARGV[1] end onto
// the right end of the archive KEYS[2], and returns the archive's length
// after and the elements moved, oldest first.
var moveScript = redis.NewScript(`
local out = {}
for i = 1, tonumber(ARGV[2]) do
  local v = redis.call('LMOVE', KEYS[1], KEYS[2], ARGV[1], 'RIGHT')
  if not v then break end
  out[#out + 1] = v
end
return {redis.call('LLEN', KEYS[2]), out}
`)

// listMover moves one list sink key's elements into its archive in push
// order, and records each as it moves it. The archive is written by the
// mover alone, so its length says what was moved: an element whose move's
// reply was lost is found there by the next turn.
type listMover struct {
	o                  *SinkObserver
	src, archive, from string
	moved              int64 // elements recorded; the last one's id
	archived           int64 // archive elements recorded
	restarts           restartWatch
}

// loop moves elements until stopped, then drains the list without
// blocking.
func (m *listMover) loop(ctx context.Context, stopping <-chan struct{}) {
	for ctx.Err() == nil {
		if closed(stopping) {
			m.drain(ctx)
			return
		}
		n, err := m.turn(ctx)
		if err != nil {
			_ = sleep.For(ctx, reconnectBackoff)
			continue
		}
		if n < moveBatch {
			if err := m.block(ctx); err != nil {
				_ = sleep.For(ctx, reconnectBackoff)
			}
		}
	}
}

// drain moves what the list holds, retrying errors until flushTimeout; a
// drain that cannot finish is a gap: moved elements may be unrecorded.
func (m *listMover) drain(ctx context.Context) {
	deadline := time.Now().Add(flushTimeout)
	for ctx.Err() == nil {
		n, err := m.turn(ctx)
		switch {
		case err == nil && n < moveBatch:
			return
		case err != nil && time.Now().After(deadline):
			m.o.gap(m.src, fmt.Sprintf("list %s: the mover stopped before it could account for its archive %s (%v): elements moved or still pushed may be unrecorded", m.src, m.archive, err))
			return
		case err != nil:
			_ = sleep.For(ctx, reconnectBackoff)
		}
	}
}

// turn moves up to moveBatch elements in one MULTI with INFO server, and
// records them after any the archive holds beyond what was recorded. It
// returns how many the script moved.
func (m *listMover) turn(ctx context.Context) (int, error) {
	pipe := m.o.rdb.TxPipeline()
	info := pipe.Info(ctx, "server")
	res := moveScript.Eval(ctx, pipe, []string{m.src, m.archive}, m.from, moveBatch)
	_, _ = pipe.Exec(ctx)
	if err := info.Err(); err != nil {
		return 0, fmt.Errorf("move list %s: INFO server: %w", m.src, err)
	}
	if detail := m.restarts.check(ctx, m.o.rdb, info.Val()); detail != "" {
		m.o.gap(m.src, fmt.Sprintf("list %s: %s", m.src, detail))
	}
	length, elems, err := moveResult(res)
	if err != nil {
		return 0, fmt.Errorf("move list %s into %s: %w", m.src, m.archive, err)
	}
	if err := m.reconcile(ctx, length-int64(len(elems))); err != nil {
		return 0, err
	}
	for _, e := range elems {
		m.record(e)
	}
	m.archived = length
	return len(elems), nil
}

// reconcile records the elements the archive held before this turn's
// moves (length of them) beyond those recorded: moves whose reply was lost.
// An archive shorter than what was recorded lost elements: a gap.
func (m *listMover) reconcile(ctx context.Context, length int64) error {
	switch {
	case length < m.archived:
		// The archive's elements are the records moved-archived+1 on, in
		// order: the ones it still holds end at kept.
		kept := m.moved - m.archived + length
		m.o.gapKept(m.src, fmt.Sprintf("list %s: its archive %s holds %d elements, %d were moved into it: Redis lost data", m.src, m.archive, length, m.archived),
			strconv.FormatInt(kept, 10))
		m.archived = length
	case length > m.archived:
		lost, err := m.o.rdb.LRange(ctx, m.archive, m.archived, length-1).Result()
		if err != nil {
			return fmt.Errorf("move list %s: read the archive's unrecorded elements: %w", m.src, err)
		}
		for _, e := range lost {
			m.record(e)
		}
		m.archived += int64(len(lost))
	}
	return nil
}

// block waits up to moveBlock for one element and records it.
func (m *listMover) block(ctx context.Context) error {
	e, err := m.o.rdb.BLMove(ctx, m.src, m.archive, m.from, "RIGHT", moveBlock).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("move list %s: %w", m.src, err)
	}
	m.record(e)
	m.archived++
	return nil
}

func (m *listMover) record(elem string) {
	m.moved++
	msg := m.o.cfg.Element(elem)
	m.o.add(history.Append{Sink: history.SinkList, Key: m.src, ID: strconv.FormatInt(m.moved, 10),
		MessageID: msg.ID, DataJobID: msg.DataJobID, At: time.Now().UTC()})
}

// moveResult reads moveScript's reply.
func moveResult(res *redis.Cmd) (int64, []string, error) {
	v, err := res.Slice()
	if err != nil {
		return 0, nil, err
	}
	if len(v) != 2 {
		return 0, nil, fmt.Errorf("unexpected reply %v", v)
	}
	length, ok := v[0].(int64)
	raw, ok2 := v[1].([]any)
	if !ok || !ok2 {
		return 0, nil, fmt.Errorf("unexpected reply %v", v)
	}
	elems := make([]string, 0, len(raw))
	for _, r := range raw {
		s, ok := r.(string)
		if !ok {
			return 0, nil, fmt.Errorf("unexpected element %v", r)
		}
		elems = append(elems, s)
	}
	return length, elems, nil
}
