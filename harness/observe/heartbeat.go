package observe

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	heartbeatInterval = 100 * time.Millisecond
	heartbeatPrefix   = "outboxchaos-observer-heartbeat:"
)

// heartbeat PINGs the pub/sub connection every heartbeatInterval with its
// send time as the payload, until stopped. The PONG comes back in line with
// the notifications, so when the keyspace loop reads a PONG it has read every
// notification the server sent before the PING: the send time is a moment up
// to which nothing was lost. A PING on a broken connection fails; the
// keyspace loop's next read notices.
func (o *RedisObserver) heartbeat(ctx context.Context, ps *redis.PubSub, stopping <-chan struct{}) {
	defer o.wg.Done()
	t := time.NewTicker(heartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stopping:
			return
		case <-t.C:
			_ = ps.Ping(ctx, heartbeatPrefix+strconv.FormatInt(time.Now().UTC().UnixNano(), 10))
		}
	}
}

// heartbeatSent reads the send time out of a heartbeat PONG's payload.
func heartbeatSent(payload string) (time.Time, bool) {
	s, ok := strings.CutPrefix(payload, heartbeatPrefix)
	if !ok {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, n).UTC(), true
}
