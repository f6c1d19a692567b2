package observe

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// restartWatch tells a Redis restart between two reads by the server's
// run_id (INFO server), which every start draws anew. A restart closes
// every connection, so what a reader sees around it proves nothing by
// itself: the restart is lossless only when the restarted server writes
// every command to its append-only file before it replies (appendonly yes,
// appendfsync always), so that nothing a client saw acknowledged was lost.
type restartWatch struct {
	runID string
}

// check takes an INFO server reply and returns why writes may have been
// lost since the last one, or "".
func (w *restartWatch) check(ctx context.Context, rdb *redis.Client, info string) string {
	id := infoValue(info, "run_id")
	if id == "" || id == w.runID {
		return ""
	}
	before := w.runID
	w.runID = id
	if before == "" {
		return ""
	}
	why := durable(ctx, rdb)
	if why == "" {
		return ""
	}
	return fmt.Sprintf("Redis restarted (run_id %s, now %s) and %s: writes just before the restart may be lost unseen", before, id, why)
}

// durable returns "" when the server persists every write before it
// replies, else what it does instead.
func durable(ctx context.Context, rdb *redis.Client) string {
	cfg, err := rdb.ConfigGet(ctx, "append*").Result()
	if err != nil {
		return fmt.Sprintf("its persistence could not be read (%v)", err)
	}
	if cfg["appendonly"] != "yes" || cfg["appendfsync"] != "always" {
		return fmt.Sprintf("it does not write every command to disk before replying (appendonly %q, appendfsync %q)", cfg["appendonly"], cfg["appendfsync"])
	}
	return ""
}

// infoValue is a field of an INFO reply ("" when absent).
func infoValue(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}
