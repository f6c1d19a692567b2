package dispatcher

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// producerClient is the Redis client the BullMQ producer adds through: the
// dispatcher's own, or in script-loaded-once one that loads the add script
// only once.
func (d *Dispatcher) producerClient() redis.UniversalClient {
	if d.flow.scriptOnce {
		return &scriptOnceClient{UniversalClient: d.rdb}
	}
	return d.rdb
}

// scriptOnceClient is script-loaded-once: it loads a script into Redis the
// first time the producer asks (the dispatcher's first add), and from then
// on answers SCRIPT LOAD itself with the script's SHA, as a client that
// loads its scripts at start and caches their SHAs does (scripbox/flume
// #25). Redis keeps scripts in memory only, so after
// a restart every EVALSHA meets NOSCRIPT, the producer's reload changes
// nothing, and every add fails until the process restarts
// (Openpanel-dev/groupmq #16, gresrun/jesque #100).
type scriptOnceClient struct {
	redis.UniversalClient
	loaded atomic.Bool
}

func (c *scriptOnceClient) ScriptLoad(ctx context.Context, script string) *redis.StringCmd {
	if c.loaded.Load() {
		cmd := redis.NewStringCmd(ctx, "script", "load", script)
		sum := sha1.Sum([]byte(script))
		cmd.SetVal(hex.EncodeToString(sum[:]))
		return cmd
	}
	cmd := c.UniversalClient.ScriptLoad(ctx, script)
	if cmd.Err() == nil {
		c.loaded.Store(true)
	}
	return cmd
}
