package env

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
)

// localEnv runs private servers from package localenv.
type localEnv struct {
	maria *localenv.MariaDB
	redis *localenv.Redis
	// replica replicates redis (Config.RedisReplica), or is nil.
	replica *localenv.Redis
	pg      postgresPart
}

var _ Env = (*localEnv)(nil)

// The localenv servers already have the Control methods.
var (
	_ Control = (*localenv.MariaDB)(nil)
	_ Control = (*localenv.Redis)(nil)
)

func openLocal(ctx context.Context, cfg Config) (*localEnv, error) {
	m, err := localenv.StartMariaDB(ctx, localenv.MariaDBOptions{})
	if err != nil {
		return nil, err
	}
	r, err := localenv.StartRedis(ctx, localenv.RedisOptions{Persistence: cfg.RedisPersistence})
	if err != nil {
		return nil, errors.Join(err, m.Close())
	}
	e := &localEnv{maria: m, redis: r, pg: postgresPart{cfg: cfg}}
	if cfg.RedisReplica {
		if e.replica, err = startReplica(ctx, r.Addr()); err != nil {
			return nil, errors.Join(err, e.Close())
		}
	}
	return e, nil
}

// startReplica starts a private redis-server replicating primary and waits
// until its link is up, so that the first WAIT counts it.
func startReplica(ctx context.Context, primary string) (*localenv.Redis, error) {
	r, err := localenv.StartRedis(ctx, localenv.RedisOptions{ReplicaOf: primary})
	if err != nil {
		return nil, fmt.Errorf("start the redis replica: %w", err)
	}
	linkCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := r.WaitLinked(linkCtx); err != nil {
		return nil, errors.Join(err, r.Close())
	}
	return r, nil
}

// RedisReplicaAddr is the replica's address, or "" without one.
func (e *localEnv) RedisReplicaAddr() string {
	if e.replica == nil {
		return ""
	}
	return e.replica.Addr()
}

func (e *localEnv) Name() string      { return KindLocal }
func (e *localEnv) MySQLAddr() string { return e.maria.Addr() }
func (e *localEnv) MySQLDSN(database string) string {
	return adminDSN(rootConfig(), e.maria.Addr(), database)
}
func (e *localEnv) RedisAddr() string { return e.redis.Addr() }
func (e *localEnv) RedisDB() int      { return 0 }
func (e *localEnv) Versions(ctx context.Context) (map[string]string, error) {
	return versions(ctx, e, &e.pg)
}
func (e *localEnv) MySQL() Control { return e.maria }
func (e *localEnv) Redis() Control { return e.redis }
func (e *localEnv) Postgres(ctx context.Context) (*Postgres, error) {
	return e.pg.get(ctx)
}

// Close kills the servers and removes their files.
func (e *localEnv) Close() error {
	errs := []error{e.pg.close(), e.maria.Close(), e.redis.Close()}
	if e.replica != nil {
		errs = append(errs, e.replica.Close())
	}
	return errors.Join(errs...)
}
