package workload

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Hold makes Produce hold some transactions open after their INSERTs, so
// that AUTO_INCREMENT ids become visible out of order: the id is handed out
// at the insert, the row is visible at the commit, and a transaction held
// open commits id n after the producer committed n+1, n+2, ... The zero
// value holds nothing (and draws nothing, so a seed replays as before).
type Hold struct {
	// Share of events (0..1) whose transaction is held open.
	Share float64
	// Min and Max bound the hold; each is drawn uniformly in [Min, Max].
	Min, Max time.Duration
	// Late is the share of the first half's held events held much longer:
	// until the producer has sent its last event, then their drawn hold.
	// Every instance has claimed past them by then, so a reader keeping a
	// high-water mark in any instance has passed them.
	Late float64
}

// Validate reports a hold that cannot be applied.
func (h Hold) Validate() error {
	switch {
	case math.IsNaN(h.Share) || h.Share < 0 || h.Share > 1:
		return fmt.Errorf("hold share %v: use a fraction in [0, 1]", h.Share)
	case h.Share == 0 && (h.Min != 0 || h.Max != 0):
		return fmt.Errorf("hold %s..%s with share 0: set a share, or leave the durations zero", h.Min, h.Max)
	case h.Share > 0 && (h.Min <= 0 || h.Max < h.Min):
		return fmt.Errorf("hold %s..%s: want 0 < Min <= Max", h.Min, h.Max)
	case math.IsNaN(h.Late) || h.Late < 0 || h.Late > 1 || (h.Late > 0 && h.Share == 0):
		return fmt.Errorf("hold late share %v: use a fraction in [0, 1] of the held events (with a share set)", h.Late)
	}
	return nil
}

// drawHold returns how long to hold event i of n's transaction (0: commit
// at once), and whether it is held late (past the last event sent). It
// draws only when a share is set, and the late draw only when Late is.
func (p *Producer) drawHold(i, n int) (time.Duration, bool) {
	h := p.cfg.Hold
	if h.Share == 0 {
		return 0, false
	}
	if p.cfg.Rand.Float64() >= h.Share {
		return 0, false
	}
	d := h.Min + time.Duration(p.cfg.Rand.Int64N(int64(h.Max-h.Min)+1))
	late := h.Late > 0 && p.cfg.Rand.Float64() < h.Late && i < n/2
	return d, late
}

// holds tracks the transactions held open in the background.
type holds struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	first error
	end   chan struct{} // closed once the last event is sent
	// cut is closed, and replaced, when the producer's own INSERT met a
	// lock wait timeout or a deadlock (cutLate): the late holds open then
	// end at once.
	cut chan struct{}
}

// cutLate ends the late holds open now. A late-held transaction waits for
// the producer's last event, and the producer's INSERT may wait, through a
// dispatcher's claim queued behind the held row's lock, on that very
// transaction: a cycle that passes through the producer's goroutine, which
// the server cannot see as a deadlock, so each INSERT would wait out the
// server's lock wait timeout until the producer gave up. An application's
// transactions do not wait on each other that way. The held events are
// still recorded with how long they were held; later holds are late again.
func (h *holds) cutLate() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.cut)
	h.cut = make(chan struct{})
}

// cutSignal is the channel the next cutLate closes.
func (h *holds) cutSignal() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cut
}

func (h *holds) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.first == nil {
		h.first = err
	}
}

func (h *holds) err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.first
}

// wait waits for every held transaction and returns the first error.
func (h *holds) wait() error {
	h.wg.Wait()
	return h.err()
}

// startHeld writes ev in a transaction, then commits it in the background
// after d (after the last event is sent and then d, when late) and records
// it then; Committing is when the COMMIT was sent.
func (p *Producer) startHeld(ctx context.Context, hs *holds, ev planned, d time.Duration, late bool) error {
	tx, id, err := p.insertHeld(ctx, ev, hs.cutLate)
	if err != nil {
		return err
	}
	began := time.Now()
	cut := hs.cutSignal()
	hs.wg.Add(1)
	go func() {
		defer hs.wg.Done()
		if late {
			select {
			case <-hs.end:
			case <-cut:
			case <-ctx.Done():
			}
		}
		held := func(sent time.Time) time.Duration { return d }
		if late {
			held = func(sent time.Time) time.Duration { return sent.Sub(began) }
		}
		if err := p.commitHeld(ctx, tx, ev, id, d, held); err != nil {
			hs.fail(fmt.Errorf("held event (job %s): %w", ev.jobID, err))
		}
	}()
	return nil
}

// insertHeld is insertOne, written again after a deadlock or lock wait
// timeout as commitOne does, calling conflicted at each.
func (p *Producer) insertHeld(ctx context.Context, ev planned, conflicted func()) (tx *sql.Tx, id int64, err error) {
	err = retryLockConflicts(ctx, conflicted, func() (err error) {
		tx, id, err = p.insertOne(ctx, ev)
		return err
	})
	return tx, id, err
}

// commitHeld commits tx after d and records its event, with held(sent)
// as how long the transaction was held.
func (p *Producer) commitHeld(ctx context.Context, tx *sql.Tx, ev planned, id int64, d time.Duration, held func(sent time.Time) time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		_ = tx.Rollback()
		return ctx.Err()
	case <-t.C:
	}
	sent := time.Now().UTC()
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback()
		if !lostConnection(err) {
			return fmt.Errorf("commit: %w", err)
		}
		// The COMMIT may or may not have landed: look, and write it
		// again only if it did not.
		if id, err = p.settle(ctx, ev); err != nil {
			return err
		}
	}
	e := p.event(ev, id)
	e.Produced = time.Now().UTC()
	e.Held = history.Duration(held(sent))
	e.Committing = sent
	p.cfg.Recorder.AddEvent(e)
	return nil
}
