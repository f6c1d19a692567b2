package sink

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// MaxDepth bounds the search for a payload's jobId (levels of nesting).
const MaxDepth = 8

// Message is what a stream entry or list element says about the message it
// carries.
type Message struct {
	ID        string // the message id ("" when it carries none)
	DataJobID string // the payload's jobId ("" when none)
}

// Entry reads a stream entry's fields (go-redis XMessage.Values).
func (c Config) Entry(values map[string]any) Message {
	var m Message
	if c.MessageID != "" {
		if v, ok := values[c.MessageID]; ok && v != nil {
			m.ID = fmt.Sprint(v)
		}
	}
	if c.Payload != "" {
		if v, ok := values[c.Payload]; ok && v != nil {
			m.DataJobID = FindJobID(fmt.Sprint(v))
		}
		return m
	}
	fields := make(map[string]any, len(values))
	for k, v := range values {
		if v != nil {
			fields[k] = fmt.Sprint(v)
		}
	}
	m.DataJobID = findJobID(fields)
	return m
}

// Element reads a list element.
func (c Config) Element(elem string) Message {
	v, ok := decode(elem)
	if !ok {
		return Message{}
	}
	obj, _ := v.(map[string]any)
	var m Message
	if c.MessageID != "" && obj != nil {
		m.ID = scalar(obj[c.MessageID])
	}
	if c.Payload == "" {
		m.DataJobID = findJobID(v)
	} else if obj != nil {
		m.DataJobID = findJobID(obj[c.Payload])
	}
	return m
}

// FindJobID is the "jobId" found anywhere in the JSON text (package doc);
// "" when there is none or the text is not JSON.
func FindJobID(text string) string {
	v, ok := decode(text)
	if !ok {
		return ""
	}
	return findJobID(v)
}

// findJobID searches v breadth first, MaxDepth levels deep.
func findJobID(v any) string {
	level := []any{v}
	for depth := 0; depth < MaxDepth && len(level) > 0; depth++ {
		var next []any
		for _, x := range level {
			if s, ok := x.(string); ok {
				if inner, ok := decode(s); ok {
					next = append(next, inner)
				}
				continue
			}
			id, children := visit(x)
			if id != "" {
				return id
			}
			next = append(next, children...)
		}
		level = next
	}
	return ""
}

// visit returns an object's jobId, and the values to search one level
// down (an object's in sorted key order, an array's in order).
func visit(x any) (string, []any) {
	switch t := x.(type) {
	case map[string]any:
		if id := scalar(t["jobId"]); id != "" {
			return id, nil
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		children := make([]any, 0, len(keys))
		for _, k := range keys {
			children = append(children, t[k])
		}
		return "", children
	case []any:
		return "", t
	}
	return "", nil
}

// scalar is a string or number as written; "" for anything else.
func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	}
	return ""
}

// decode parses text holding a JSON object or array (numbers kept as
// written); ok is false for anything else.
func decode(text string) (any, bool) {
	s := strings.TrimSpace(text)
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return v, true
}
