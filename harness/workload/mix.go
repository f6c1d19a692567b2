package workload

import (
	"fmt"
	"math/rand/v2"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Mix holds the relative weights of each event kind. A zero weight never
// produces that kind; at least one weight must be positive.
type Mix struct {
	Valid         int
	UnknownType   int
	MissingJob    int
	QueueDenied   int
	IllegalJobID  int
	AlreadyQueued int
	// LongError and MultibyteError are queue-not-allowed events whose
	// failure text is hard to write (history.KindLongError,
	// history.KindMultibyteError).
	LongError      int
	MultibyteError int
}

// weighted lists the kinds in a fixed order, so a seed always draws the same
// sequence.
func (m Mix) weighted() []kindWeight {
	return []kindWeight{
		{history.KindValid, m.Valid},
		{history.KindUnknownType, m.UnknownType},
		{history.KindMissingJob, m.MissingJob},
		{history.KindQueueDenied, m.QueueDenied},
		{history.KindIllegalJobID, m.IllegalJobID},
		{history.KindAlreadyQueued, m.AlreadyQueued},
		{history.KindLongError, m.LongError},
		{history.KindMultibyteError, m.MultibyteError},
	}
}

type kindWeight struct {
	kind   string
	weight int
}

// Validate checks that no weight is negative and one is positive.
func (m Mix) Validate() error {
	total := 0
	for _, kw := range m.weighted() {
		if kw.weight < 0 {
			return fmt.Errorf("mix: weight of %s is %d; use 0 or more", kw.kind, kw.weight)
		}
		total += kw.weight
	}
	if total == 0 {
		return fmt.Errorf("mix: every weight is 0; give at least one kind a positive weight (Valid: 1, say)")
	}
	return nil
}

// draw picks a kind with probability proportional to its weight.
func (m Mix) draw(r *rand.Rand) string {
	kws := m.weighted()
	total := 0
	for _, kw := range kws {
		total += kw.weight
	}
	n := r.IntN(total)
	last := ""
	for _, kw := range kws {
		if n < kw.weight {
			return kw.kind
		}
		n -= kw.weight
		if kw.weight > 0 {
			last = kw.kind
		}
	}
	return last // not reached: n < total
}
