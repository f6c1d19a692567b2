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
