package bullmq

import "fmt"

// Outcome says what one add did.
type Outcome int

const (
	// Added: a new job was created and queued.
	Added Outcome = iota + 1
	// Duplicate: the job hash already existed; nothing changed except a
	// 'duplicated' event on the queue's stream.
	Duplicate
	// Deduped: the job hash was gone (a consumer removed it) but the dedupe
	// record was still within the horizon; nothing changed except a
	// 'duplicated' event.
	Deduped
)

// String returns "added", "duplicate" or "deduped".
func (o Outcome) String() string {
	switch o {
	case Added:
		return "added"
	case Duplicate:
		return "duplicate"
	case Deduped:
		return "deduped"
	default:
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
}

// Result is the fate of one job of a batch. Err is set when this job was
// not added: ErrIllegalJobID or ErrInvalidJob (permanent, refused before any
// Redis write) or a Redis error reply for this job (e.g. LOADING, OOM,
// WRONGTYPE). Outcome is meaningful only when Err is nil.
type Result struct {
	Job     Job
	Outcome Outcome
	Err     error
}
