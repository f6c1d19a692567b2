package nemesis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv"
)

// Checkpointer is an observer that can flush what Redis sent and follow
// again (observe.RedisObserver.Checkpoint, observe.SinkObserver.Checkpoint).
type Checkpointer interface {
	Checkpoint() error
}

// cutSettle is how long RestartRedisLosing waits after cutting the links
// before it flushes the observers: what an instance had in flight when its
// connection closed has reached Redis by then.
const cutSettle = 200 * time.Millisecond

// canLoseRedisWrites says why RestartRedisLosing cannot run here, or "".
func (n *Nemesis) canLoseRedisWrites() string {
	if n.env.Redis() == nil {
		return fmt.Sprintf("the %s environment cannot restart Redis", n.env.Name())
	}
	if _, ok := n.obs.(Checkpointer); !ok {
		return "the run has no Redis observer that can be checkpointed"
	}
	return ""
}

// RestartRedisLosing makes Redis lose the writes it acknowledges for
// unpersisted, then restarts it quietly:
//
//  0. When the environment runs a replica (env.Config.RedisReplica), the
//     replica stops following first (REPLICAOF NO ONE): from then on the
//     primary has no replica, so a WAIT counts none. A write a WAIT
//     counted the replica for came before this step, and so is in the
//     file the restart loads: the restarted server holds at least what the
//     replica held, as a failover to the replica would.
//  1. CONFIG SET appendonly no (FaultRedisUnpersisted opens): Redis stops
//     writing its append-only file and acknowledges every write all the
//     same, as a server whose disk lags behind does.
//  2. After unpersisted, every instance's Redis link is cut (a down
//     fault on redis), and after cutSettle FaultQuietRestart opens and the
//     observers flush: every write an instance got into Redis is recorded.
//  3. Redis is SIGKILLed (FaultRedisUnpersisted closes) and started again
//     after down. It loads its file as it was in step 1 and writes it again
//     from there, since its command line turns it on.
//  4. The replica follows the restarted server again (a full resync), the
//     observers flush again, which records the streams the restart took
//     back, and follow on (FaultQuietRestart closes); then the links heal.
//
// Redis must run with its append-only file on (env.Config.RedisPersistence):
// without it the restart would lose every write, not the window.
func (n *Nemesis) RestartRedisLosing(ctx context.Context, unpersisted, down time.Duration) (err error) {
	if why := n.canLoseRedisWrites(); why != "" {
		return fmt.Errorf("restart redis losing writes: %s", why)
	}
	admin := redis.NewClient(&redis.Options{Addr: n.env.RedisAddr(), MaxRetries: -1})
	defer admin.Close()
	if err := persisting(ctx, admin); err != nil {
		return err
	}
	mechanism := "CONFIG SET appendonly no"
	replica, err := n.detachReplica(ctx)
	if err != nil {
		return err
	}
	if replica != nil {
		defer func() { // again after the restart: a no-op then
			err = errors.Join(err, n.reattach(ctx, replica), replica.Close())
		}()
		mechanism = "REPLICAOF NO ONE on the replica, then CONFIG SET appendonly no"
	}
	lossID := n.rec.StartFault(history.Fault{Kind: history.FaultRedisUnpersisted, Target: "redis",
		Params: map[string]string{"mechanism": mechanism, "for": unpersisted.String()}, Start: time.Now().UTC()})
	ended := false
	endLoss := func() {
		if !ended {
			ended = true
			n.rec.EndFault(lossID, time.Now().UTC())
		}
	}
	defer endLoss()
	if err := admin.ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
		return fmt.Errorf("restart redis losing writes: turn the append-only file off: %w", err)
	}
	err = n.Sleep(ctx, unpersisted)
	if err == nil {
		err = n.quietRestart(ctx, down, endLoss, replica)
	}
	if err != nil && !ended { // no kill: Redis must not run on without its file
		err = errors.Join(err, admin.ConfigSet(context.WithoutCancel(ctx), "appendonly", "yes").Err())
	}
	return err
}

// quietRestart is RestartRedisLosing's steps 2 to 4; killed runs right
// after the SIGKILL. A detached replica (nil without one) follows the
// restarted server again before the observers flush.
func (n *Nemesis) quietRestart(ctx context.Context, down time.Duration, killed func(), replica *redis.Client) error {
	heal, err := n.addNetwork("redis", "", faultproxy.Down{}, down+time.Second)
	if err != nil {
		return fmt.Errorf("restart redis losing writes: cut the links: %w", err)
	}
	defer heal()
	if err := n.Sleep(ctx, cutSettle); err != nil {
		return err
	}
	quiet := n.window(history.FaultQuietRestart, "redis", map[string]string{"down": down.String()})
	defer quiet()
	obs := n.obs.(Checkpointer)
	if err := obs.Checkpoint(); err != nil {
		return fmt.Errorf("restart redis losing writes: before the kill: %w", err)
	}
	if err := n.restartServer(ctx, "redis", n.env.Redis(), down, killed); err != nil {
		return err
	}
	if err := n.reattach(ctx, replica); err != nil {
		return err
	}
	if err := obs.Checkpoint(); err != nil {
		return fmt.Errorf("restart redis losing writes: after the restart: %w", err)
	}
	return nil
}

// persisting refuses a Redis whose append-only file is off.
func persisting(ctx context.Context, admin *redis.Client) error {
	v, err := admin.ConfigGet(ctx, "appendonly").Result()
	if err != nil {
		return fmt.Errorf("restart redis losing writes: read appendonly: %w", err)
	}
	if v["appendonly"] != "yes" {
		return fmt.Errorf("restart redis losing writes: Redis runs without its append-only file (appendonly %q), so a restart would lose every write, not a window; start it with persistence (env.Config.RedisPersistence)", v["appendonly"])
	}
	return nil
}

// detachReplica makes the environment's Redis replica stop following its
// primary (REPLICAOF NO ONE) and returns a client to it; nil, nil when the
// environment runs none.
func (n *Nemesis) detachReplica(ctx context.Context) (*redis.Client, error) {
	addr := env.RedisReplicaAddr(n.env)
	if addr == "" {
		return nil, nil
	}
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	if err := c.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		return nil, errors.Join(fmt.Errorf("restart redis losing writes: detach the replica %s: %w", addr, err), c.Close())
	}
	return c, nil
}

// reattach makes a detached replica follow the primary again and waits,
// up to replicaRelink, until its link is up; nil does nothing. Once it
// follows, a second call changes nothing.
func (n *Nemesis) reattach(ctx context.Context, replica *redis.Client) error {
	if replica == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replicaRelink)
	defer cancel()
	host, port, err := net.SplitHostPort(n.env.RedisAddr())
	if err != nil {
		return fmt.Errorf("restart redis losing writes: the primary's address: %w", err)
	}
	if err := replica.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		return fmt.Errorf("restart redis losing writes: make the replica follow again: %w", err)
	}
	if err := localenv.ReplicaLinked(ctx, replica); err != nil {
		return fmt.Errorf("restart redis losing writes: within %v: %w", replicaRelink, err)
	}
	return nil
}

// replicaRelink bounds how long the replica may take to follow again.
const replicaRelink = 30 * time.Second
