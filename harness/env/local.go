package env

import (
	"context"
	"errors"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
)

// localEnv runs private servers from package localenv.
type localEnv struct {
	maria *localenv.MariaDB
	redis *localenv.Redis
	pg    postgresPart
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
	return &localEnv{maria: m, redis: r, pg: postgresPart{cfg: cfg}}, nil
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
	return errors.Join(e.pg.close(), e.maria.Close(), e.redis.Close())
}
