package dispatcher

import (
	"strings"
	"unicode/utf8"
)

// maxLastError is the width of outbox_events.last_error.
const maxLastError = 1024

// inList returns "(?,?,...)" for n values.
func inList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
}

func int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

func stringArgs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// truncateError cuts text to fit last_error, on a character boundary, and
// folds it onto one line.
func truncateError(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= maxLastError {
		return text
	}
	cut := maxLastError
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut]
}
