package history

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// DataJobID returns data.jobId from a BullMQ job's data JSON, or "" when the
// data is not an object or has no jobId. A number is returned as written.
// Observers and the consumer record it; checkers match jobs to rows by it.
func DataJobID(data string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(data)))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return ""
	}
	switch v := obj["jobId"].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// JobCandidates returns the ai_jobs ids a BullMQ job may stand for: its
// data.jobId when known, and its BullMQ id, except that an all-digit BullMQ
// id is BullMQ's own counter (the dispatcher gave no jobId) and does not
// name a row when the data names one. It is the one definition of how a job
// is matched to a row; callers keep the candidates that name a known row.
func JobCandidates(bullID, dataJobID string) []string {
	var out []string
	if dataJobID != "" {
		out = append(out, dataJobID)
	}
	if bullID != "" && bullID != dataJobID && (dataJobID == "" || !AllDigits(bullID)) {
		out = append(out, bullID)
	}
	return out
}

// AllDigits tells whether s is a non-empty run of decimal digits, of any
// length: BullMQ's own counter ids, and ids the contract forbids as jobIds.
func AllDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
