package observe

import "strings"

// queueKeys are the names under <prefix>:<q>: that BullMQ uses for the queue
// itself; every other name without ':' is a job id.
var queueKeys = map[string]bool{
	"wait": true, "paused": true, "active": true, "prioritized": true, "delayed": true,
	"completed": true, "failed": true, "waiting-children": true, "id": true, "meta": true,
	"events": true, "marker": true, "pc": true, "stalled": true, "stalled-check": true,
	"limiter": true, "repeat": true, "metrics": true, "drained": true,
}

// jobIDFromKey returns the job id of key when it is a job hash key of the
// queue whose keys start with base ("<prefix>:<q>:").
func jobIDFromKey(base, key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, base)
	if !ok || rest == "" || strings.Contains(rest, ":") || queueKeys[rest] {
		return "", false
	}
	return rest, true
}

// globEscape quotes the glob specials of s for SCAN MATCH and PSUBSCRIBE.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
