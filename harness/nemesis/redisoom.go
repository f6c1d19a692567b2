package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// CanFillRedis says whether RedisOutOfMemory can run: Redis is a server
// the harness started (local or testcontainers), which it may reconfigure;
// an external Redis is someone else's.
func (n *Nemesis) CanFillRedis() bool { return n.env.Redis() != nil }

// RedisOutOfMemory holds Redis over its memory limit for d. Its window opens
// before the limit is set and closes after the server's own settings are
// back, so every -OOM a dispatcher met inside it is the server's.
func (n *Nemesis) RedisOutOfMemory(ctx context.Context, d time.Duration) error {
	if !n.CanFillRedis() {
		return fmt.Errorf("redis out of memory: the %s environment's Redis is not the harness's own, and it is not reconfigured", n.env.Name())
	}
	admin := redis.NewClient(&redis.Options{Addr: n.env.RedisAddr(), MaxRetries: -1})
	defer admin.Close()
	was, err := admin.ConfigGet(ctx, "maxmemory*").Result()
	if err != nil {
		return fmt.Errorf("redis out of memory: read maxmemory: %w", err)
	}
	end := n.window(history.FaultRedisMaxMemory, "redis", map[string]string{
		"mechanism": "CONFIG SET maxmemory 1, maxmemory-policy noeviction", "for": d.String()})
	defer end()
	restore := func() error {
		ctx := context.WithoutCancel(ctx)
		return errors.Join(
			admin.ConfigSet(ctx, "maxmemory-policy", was["maxmemory-policy"]).Err(),
			admin.ConfigSet(ctx, "maxmemory", was["maxmemory"]).Err())
	}
	if err := errors.Join(
		admin.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(),
		admin.ConfigSet(ctx, "maxmemory", "1").Err()); err != nil {
		return fmt.Errorf("redis out of memory: set maxmemory: %w", errors.Join(err, restore()))
	}
	sleepErr := n.Sleep(ctx, d)
	if err := restore(); err != nil {
		return fmt.Errorf("redis out of memory: restore maxmemory %s (%s): %w", was["maxmemory"], was["maxmemory-policy"], err)
	}
	return sleepErr
}
