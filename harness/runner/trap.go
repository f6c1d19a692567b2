package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// windowLatency delays Redis's replies to the armed instance while a window
// trap waits: its add lands at once (the harness sees the job), but the
// instance learns of it, and so reaches markPublished, only this much later.
const windowLatency = 300 * time.Millisecond

// CrashWindow kills the slot's instance between a BullMQ add and its
// markPublished, then restarts it. A dispatcher with crash points crashes at
// after-enqueue on its nth batch; a black-box dispatcher is trapped from
// outside: when Redis shows a job created for an event the instance holds,
// its MySQL link is blackholed, the process SIGKILLed, the link healed.
func (n *Nemesis) CrashWindow(ctx context.Context, slot string, nth int, deadline time.Duration) error {
	if n.caps.CrashPoints {
		return n.CrashAt(ctx, slot, "after-enqueue", nth, deadline)
	}
	return n.trapWindow(ctx, slot, deadline)
}

func (n *Nemesis) trapWindow(ctx context.Context, slot string, deadline time.Duration) error {
	link, redisLink := n.links["mysql/"+slot], n.links["redis/"+slot]
	slow, err := redisLink.Add(faultproxy.Fault{Kind: faultproxy.Latency, Latency: windowLatency, Direction: faultproxy.Downstream})
	if err != nil {
		return fmt.Errorf("window trap %s: delay redis replies: %w", slot, err)
	}
	defer func() { _ = redisLink.Remove(slow) }()
	tctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	jobs := make(chan string)
	go n.watchCreations(tctx, slot, jobs)
	_, err = n.sup.TrapWindow(tctx, slot, jobs, func() (func() error, error) {
		id, err := link.Add(faultproxy.Fault{Kind: faultproxy.Blackhole})
		return func() error { return link.Remove(id) }, err
	})
	if err != nil && !errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return err
	}
	// Sprung or timed out (no add in time): either way restart it clean.
	if n.alive(slot) {
		return nil
	}
	return n.start(ctx, slot, n.slotEnv[slot])
}

// watchCreations sends the ids of jobs created in Redis from now on whose
// event the slot's current instance holds. Without a locked_by column in
// the mapping, any created job counts.
func (n *Nemesis) watchCreations(ctx context.Context, slot string, out chan<- string) {
	_, seen := n.rec.StreamSince(1 << 62)
	for {
		var entries []history.StreamEntry
		entries, seen = n.rec.StreamSince(seen)
		for _, e := range entries {
			if e.Event != "added" || !n.holds(ctx, slot, e.JobID) {
				continue
			}
			select {
			case out <- e.JobID:
				return
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// holds says whether the slot's current instance holds the event of job.
func (n *Nemesis) holds(ctx context.Context, slot, job string) bool {
	m := n.schema
	if m.Outbox.LockedBy == "" {
		return true
	}
	var processing []any
	for w, c := range m.OutboxStatus {
		if c == history.StatusProcessing {
			processing = append(processing, w)
		}
	}
	q := fmt.Sprintf("SELECT COUNT(*) FROM `%s` WHERE `%s` = ? AND `%s` = ? AND `%s` IN (%s)",
		m.Outbox.Table, m.Outbox.AggregateID, m.Outbox.LockedBy, m.Outbox.Status,
		strings.TrimSuffix(strings.Repeat("?,", len(processing)), ","))
	args := append([]any{job, n.sup.Instances()[slot]}, processing...)
	var k int
	if err := n.db.QueryRowContext(ctx, q, args...).Scan(&k); err != nil {
		return false
	}
	return k > 0
}
