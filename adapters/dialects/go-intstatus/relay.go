package main

import (
	"context"
	"log"
	"slices"
	"strconv"
	"sync/atomic"
)

// relay runs rounds: claim a batch, publish it, settle it.
type relay struct {
	cfg      config
	store    *store
	sink     *sink
	log      *log.Logger
	stopping atomic.Bool // SIGTERM came: claim nothing more, release what no publish touched
}

// round handles one batch and returns how many rows it claimed.
func (r *relay) round(ctx context.Context) int {
	ms, err := r.store.claim(ctx, r.cfg.batch)
	if err != nil {
		r.log.Printf("%v", err)
		return 0
	}
	if len(ms) == 0 {
		return 0
	}
	if r.stopping.Load() {
		r.giveBack(ctx, ms)
		return len(ms)
	}
	o := newOutcomes()
	var publish []message
	for _, m := range ms {
		if !slices.Contains(r.cfg.topics, m.topic) {
			reason := "topic " + m.topic + " is not in OUTBOX_QUEUES"
			o.dead[reason] = append(o.dead[reason], m) // no retry makes it publishable
			continue
		}
		publish = append(publish, m)
	}
	r.publish(ctx, publish, o)
	if err := r.store.settle(ctx, o); err != nil {
		// The claims stay in flight; their lease runs out and a later
		// claim (any instance's) publishes them again, which the sent
		// record turns into a no-op.
		r.log.Printf("%v", err)
	}
	return len(ms)
}

// publish publishes ms and sorts each into o: sent, retried, or (its last
// try failed) settled by lastTries.
func (r *relay) publish(ctx context.Context, ms []message, o *outcomes) {
	if len(ms) == 0 {
		return
	}
	var last []message
	var lastErrs []error
	for i, err := range r.sink.publish(ctx, ms) {
		m := ms[i]
		switch {
		case err == nil:
			o.sent = append(o.sent, m)
		case m.tries < r.cfg.maxTries:
			o.retry[err.Error()] = append(o.retry[err.Error()], m)
		default:
			last, lastErrs = append(last, m), append(lastErrs, err)
		}
	}
	r.lastTries(ctx, last, lastErrs, o)
}

// lastTries settles messages whose last allowed try failed. An add may
// have run with its reply lost: only a message Redis says has no sent
// record is dead; one with the record is sent; when Redis answers nothing
// the claim is left to run out, and a later try decides.
func (r *relay) lastTries(ctx context.Context, ms []message, failures []error, o *outcomes) {
	if len(ms) == 0 {
		return
	}
	sent, errs := r.sink.wereSent(ctx, ms)
	for i, m := range ms {
		switch {
		case errs[i] != nil:
			r.log.Printf("%s: last try failed (%v) and %v: left to its lease", jobID(m.id), failures[i], errs[i])
		case sent[i]:
			o.sent = append(o.sent, m)
		default:
			reason := "gave up after " + strconv.Itoa(m.tries) + " tries: " + failures[i].Error()
			o.dead[reason] = append(o.dead[reason], m)
		}
	}
}

// giveBack releases claims that no publish touched (a graceful stop).
func (r *relay) giveBack(ctx context.Context, ms []message) {
	if err := r.store.release(ctx, ms); err != nil {
		r.log.Printf("%v (the claims run out with their lease)", err)
		return
	}
	r.log.Printf("released %d claims", len(ms))
}
