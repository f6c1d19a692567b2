package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// turnLock is the one dispatch lock all instances share: whoever sets it
// has the turn. Its value is a token fresh for every turn, and only the
// holder of that token deletes it (unlockScript), so an instance paused
// past the TTL cannot end its successor's turn.
type turnLock struct {
	rdb *redis.Client
	key string
	ttl time.Duration
}

// unlockScript deletes KEYS[1] only while it still holds ARGV[1], the
// token of the turn that set it; it returns 1 when it deleted the lock.
var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
return redis.call('DEL', KEYS[1])
`)

// lockKey is where the dispatch lock lives: outside the BullMQ prefix's
// queue keys, so nothing reads it as a queue's.
func lockKey(prefix string) string { return "outbox-turns:" + prefix + ":dispatch-lock" }

// take tries to set the lock for one turn. It returns the turn's token, or
// "" when another instance holds the lock.
func (l turnLock) take(ctx context.Context) (string, error) {
	token := newToken()
	ok, err := l.rdb.SetNX(ctx, l.key, token, l.ttl).Result()
	if err != nil {
		return "", fmt.Errorf("take dispatch lock: %w", err)
	}
	if !ok {
		return "", nil
	}
	return token, nil
}

// give deletes the lock if it still holds token. A lock that expired and
// was taken by another instance stays theirs.
func (l turnLock) give(ctx context.Context, token string) error {
	n, err := unlockScript.Run(ctx, l.rdb, []string{l.key}, token).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("give dispatch lock back: %w", err)
	}
	if n == 0 {
		return errors.New("give dispatch lock back: it had expired (the turn outlasted its TTL)")
	}
	return nil
}

// newToken is 128 random bits in hex, for a turn or a claim.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
