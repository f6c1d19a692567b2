package dispatcher

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// releaseLock deletes the lock only while it still holds our token, so a
// holder whose lock expired never deletes the next holder's.
var releaseLock = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
`)

// dispatchLock is the queue-constants seed's Redis dispatch lock: SET NX PX
// with a fresh token per acquisition and a token-checked release. The lock
// key has two segments, so it can never be read as a queue's key.
type dispatchLock struct {
	rdb   redis.UniversalClient
	key   string
	ttl   time.Duration
	token string
}

func newDispatchLock(rdb redis.UniversalClient, prefix string, ttl time.Duration) *dispatchLock {
	return &dispatchLock{rdb: rdb, key: prefix + ":outbox-dispatch-lock", ttl: ttl}
}

// acquire tries once to take the lock for ttl.
func (l *dispatchLock) acquire(ctx context.Context) (bool, error) {
	token, err := dispatchkit.NewToken()
	if err != nil {
		return false, fmt.Errorf("dispatch lock: %w", err)
	}
	ok, err := l.rdb.SetNX(ctx, l.key, token, l.ttl).Result()
	if err != nil {
		return false, fmt.Errorf("dispatch lock: acquire %s: %w", l.key, err)
	}
	if ok {
		l.token = token
	}
	return ok, nil
}

// release gives the lock back if it is still ours; a failure only delays
// the next holder by the rest of the ttl.
func (l *dispatchLock) release(ctx context.Context, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	n, err := releaseLock.Run(ctx, l.rdb, []string{l.key}, l.token).Int()
	switch {
	case err != nil:
		log.Warn("dispatch lock release failed", "error", err.Error())
	case n == 0:
		log.Warn("dispatch lock had expired before its release: another holder may have overlapped")
	}
}
