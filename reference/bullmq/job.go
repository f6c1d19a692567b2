package bullmq

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxJobIDLen is the longest custom job id ValidateJobID accepts, in bytes.
const MaxJobIDLen = 255

// MaxQueueNameLen is the longest queue name accepted, in bytes.
const MaxQueueNameLen = 255

var (
	// ErrIllegalJobID: the id is not a legal BullMQ custom job id. Permanent.
	ErrIllegalJobID = errors.New("illegal BullMQ job id")
	// ErrInvalidJob: the queue name, job name or data is unusable. Permanent.
	ErrInvalidJob = errors.New("invalid BullMQ job")
	// ErrNotReplicated: Redis ran the add, but WAIT counted fewer replicas
	// than Options.WaitReplicas holding it. The job may exist; only its
	// durability is unknown, so the add is to be tried again later.
	ErrNotReplicated = errors.New("job not yet on enough replicas")
)

// Job is one job to add. Data is JSON text, e.g. {"jobId":"j-1"}.
type Job struct {
	Queue, ID, Name, Data string
}

// ValidateJobID reports whether id is a legal BullMQ custom job id: not
// empty, at most MaxJobIDLen bytes, valid UTF-8 without control characters,
// not an integer (all digits, optionally after '-': BullMQ reserves numeric
// ids for its own counter) and without ':' (the key separator). The error
// wraps ErrIllegalJobID and says what is wrong.
func ValidateJobID(id string) error {
	reason := jobIDProblem(id)
	if reason == "" {
		return nil
	}
	return fmt.Errorf("%w %q: %s", ErrIllegalJobID, id, reason)
}

func jobIDProblem(id string) string {
	switch {
	case id == "":
		return "it is empty"
	case len(id) > MaxJobIDLen:
		return fmt.Sprintf("it is %d bytes long, the limit is %d", len(id), MaxJobIDLen)
	case !utf8.ValidString(id):
		return "it is not valid UTF-8"
	case hasControl(id):
		return "it contains a control character"
	case isInteger(id):
		return "it is an integer; BullMQ reserves numeric ids for its own counter"
	case strings.Contains(id, ":"):
		return "it contains ':', the Redis key separator"
	}
	return ""
}

func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// validate checks everything about a job that Redis never needs to see.
func (j Job) validate() error {
	if err := ValidateJobID(j.ID); err != nil {
		return err
	}
	switch {
	case j.Queue == "":
		return fmt.Errorf("%w %q: queue name is empty", ErrInvalidJob, j.ID)
	case len(j.Queue) > MaxQueueNameLen:
		return fmt.Errorf("%w %q: queue name is %d bytes long, the limit is %d", ErrInvalidJob, j.ID, len(j.Queue), MaxQueueNameLen)
	case strings.Contains(j.Queue, ":"):
		return fmt.Errorf("%w %q: queue name %q contains ':'", ErrInvalidJob, j.ID, j.Queue)
	case j.Name == "":
		return fmt.Errorf("%w %q: job name is empty", ErrInvalidJob, j.ID)
	case !json.Valid([]byte(j.Data)):
		return fmt.Errorf("%w %q: data is not valid JSON text", ErrInvalidJob, j.ID)
	}
	return nil
}
