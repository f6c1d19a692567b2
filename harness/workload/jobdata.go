package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// dataJobID returns data.jobId from a job's data JSON, or "" when the data is
// not an object or has no jobId. A number is returned as written.
func dataJobID(data string) string {
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
