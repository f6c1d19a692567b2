package reference

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// Permanent failure reasons: the first word of last_error and the label of
// outbox_failed_total. ReasonMaxAttempts ends a run of transient failures.
const (
	ReasonUnknownEventType = "unknown_event_type"
	ReasonJobNotFound      = "job_not_found"
	ReasonQueueNotAllowed  = "queue_not_allowed"
	ReasonIllegalJobID     = "illegal_job_id"
	ReasonMaxAttempts      = "max_attempts"
)

// How a published event was closed: the label of outbox_published_total.
const (
	HowAdded             = "added"              // a new BullMQ job was created
	HowDuplicate         = "duplicate"          // the job hash existed: the add was a no-op
	HowDeduped           = "deduped"            // the hash was gone, the dedupe record was not: no-op
	HowAlreadyDispatched = "already_dispatched" // ai_jobs was past created: no add (contract step 2)
	HowFound             = "found"              // about to fail at max attempts, but its job or dedupe record was in Redis
)

type fateKind int

const (
	fateUndecided fateKind = iota // nothing decided: released if the batch stops early
	fateAdd                       // valid and due for the BullMQ add
	fatePublish                   // close as published
	fateFail                      // failed, with reason and text
	fateRetry                     // transient failure: back to pending with backoff, or failed at the maximum
	fateGiveBack                  // a dependency answered nothing: back to pending at once, the attempt returned
)

// fate is what the batch decided for one event.
type fate struct {
	kind   fateKind
	how    string // fatePublish: Added, ...
	reason string // fateFail: Reason...
	text   string // fateFail, fateRetry: the error text
	queue  string // fateAdd, and fateRetry after an add: the job's queue
}

func publish(how string) fate { return fate{kind: fatePublish, how: how} }

func failed(reason, format string, args ...any) fate {
	return fate{kind: fateFail, reason: reason, text: fmt.Sprintf(format, args...)}
}

func retry(err error) fate { return fate{kind: fateRetry, text: oneLine(err.Error())} }

// retryAdd is a transient failure of the add to queue.
func retryAdd(err error, queue string) fate {
	f := retry(err)
	f.queue = queue
	return f
}

// giveBack is an event held while a dependency answered nothing: the
// failure is not the event's, so it spends no attempt.
func giveBack(err error) fate { return fate{kind: fateGiveBack, text: oneLine(err.Error())} }

// lastError is the text written to last_error for a failure. A transient
// failure names the attempt, so that two failures in a row always change
// last_error (the harness tells a transient failure from a lease recovery by
// a changed last_error).
// It is made to fit a last_error column of width characters
// (dispatchkit.FitError): a failure write refused for its text would be
// refused again at every attempt, and the event would never end.
func (f fate) lastError(e Event, maxAttempts, width int) string {
	switch {
	case f.kind == fateFail:
		return dispatchkit.FitError(f.reason+": "+f.text, width)
	case e.Attempts >= maxAttempts:
		return dispatchkit.FitError(fmt.Sprintf("%s: attempt %d of %d: %s", ReasonMaxAttempts, e.Attempts, maxAttempts, f.text), width)
	default:
		return dispatchkit.FitError(fmt.Sprintf("attempt %d of %d: %s", e.Attempts, maxAttempts, f.text), width)
	}
}

// oneLine folds an error text onto one line.
// selectFates is the part of a batch one Redis call is about: build's item
// for each event whose fate keep accepts, and at, the position in the batch
// of each item, where its answer goes back.
func selectFates[T any](b *Batch, fates []fate, keep func(Event, fate) bool, build func(Event, fate) T) (items []T, at []int) {
	for i, f := range fates {
		if keep(b.Events[i], f) {
			items = append(items, build(b.Events[i], f))
			at = append(at, i)
		}
	}
	return items, at
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
