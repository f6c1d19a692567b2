package env

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcmysql "github.com/testcontainers/testcontainers-go/modules/mysql"
	tcredis "github.com/testcontainers/testcontainers-go/modules/redis"
	"github.com/testcontainers/testcontainers-go/wait"
)

const (
	mysqlPort = "3306/tcp"
	redisPort = "6379/tcp"
	// containerStartTimeout bounds image pulls and first starts when the
	// caller's context has no deadline.
	containerStartTimeout = 5 * time.Minute
	containerStopTimeout  = 30 * time.Second
)

// dockerHealth returns nil when a Docker daemon answers within ctx. A
// provider that cannot even be created (no socket) fails at once.
func dockerHealth(ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("docker provider panicked: %v", r)
		}
	}()
	provider, err := testcontainers.ProviderDefault.GetProvider()
	if err != nil {
		return err
	}
	defer provider.Close()
	return provider.Health(ctx)
}

// containerEnv runs one MySQL (or MariaDB) and one Redis container.
type containerEnv struct {
	mu        sync.Mutex
	mysql     *tcmysql.MySQLContainer
	redis     *tcredis.RedisContainer
	mysqlAddr string
	redisAddr string
	pg        postgresPart
}

var _ Env = (*containerEnv)(nil)

func openContainers(ctx context.Context, cfg Config) (*containerEnv, error) {
	if err := dockerHealthWithin(ctx); err != nil {
		return nil, fmt.Errorf("no Docker daemon answers (%v): start one (on Debian `apt-get install docker.io`), "+
			"or use %s=local (needs `apt-get install mariadb-server redis-server`) or %s=external (needs %s and %s)",
			err, EnvKind, EnvKind, EnvMySQLDSN, EnvRedisURL)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, containerStartTimeout)
		defer cancel()
	}
	e := &containerEnv{pg: postgresPart{cfg: cfg}}
	if err := e.start(ctx, cfg); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	return e, nil
}

func dockerHealthWithin(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, dockerProbeTimeout)
	defer cancel()
	return dockerHealth(ctx)
}

func (e *containerEnv) start(ctx context.Context, cfg Config) error {
	var err error
	e.mysql, err = tcmysql.Run(ctx, cfg.mysqlImage(), mysqlCustomizers(cfg)...)
	if err != nil {
		return fmt.Errorf("run %s container: %w", cfg.mysqlImage(), err)
	}
	e.redis, err = tcredis.Run(ctx, DefaultRedisImage, redisCustomizers(cfg)...)
	if err != nil {
		return fmt.Errorf("run %s container: %w", DefaultRedisImage, err)
	}
	if err := e.refreshAddrs(ctx); err != nil {
		return err
	}
	return e.waitReady(ctx)
}

// mysqlCustomizers: root with an empty password; MariaDB images log
// differently from the module's MySQL wait line, so they wait for the port
// (the image's init server does not listen on TCP).
func mysqlCustomizers(cfg Config) []testcontainers.ContainerCustomizer {
	opts := []testcontainers.ContainerCustomizer{
		tcmysql.WithUsername("root"),
		tcmysql.WithPassword(""),
		testcontainers.WithCmdArgs("--max-connections=500"),
	}
	if flavor, _ := cfg.mysqlFlavor(); flavor == "mariadb" {
		opts = append(opts, testcontainers.WithWaitStrategy(wait.ForListeningPort(mysqlPort)))
	}
	return opts
}

func redisCustomizers(cfg Config) []testcontainers.ContainerCustomizer {
	aof := "no"
	if cfg.RedisPersistence {
		aof = "yes"
	}
	return []testcontainers.ContainerCustomizer{
		testcontainers.WithCmdArgs("--save", "", "--appendonly", aof),
	}
}

// refreshAddrs re-reads the mapped ports: Docker may map new ones after a
// container restart.
func (e *containerEnv) refreshAddrs(ctx context.Context) error {
	ma, err := e.mysql.PortEndpoint(ctx, mysqlPort, "")
	if err != nil {
		return fmt.Errorf("mysql container port: %w", err)
	}
	ra, err := e.redis.PortEndpoint(ctx, redisPort, "")
	if err != nil {
		return fmt.Errorf("redis container port: %w", err)
	}
	e.mu.Lock()
	e.mysqlAddr, e.redisAddr = ma, ra
	e.mu.Unlock()
	return nil
}

// waitReady polls both servers until they answer queries.
func (e *containerEnv) waitReady(ctx context.Context) error {
	err := waitUntil(ctx, "mysql container", func(ctx context.Context) error {
		_, err := mysqlVersion(ctx, e.MySQLDSN(""))
		return err
	})
	if err != nil {
		return err
	}
	return waitUntil(ctx, "redis container", func(ctx context.Context) error {
		_, err := redisVersion(ctx, RedisOptions(e))
		return err
	})
}

func (e *containerEnv) Name() string { return KindTestcontainers }
func (e *containerEnv) MySQLAddr() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.mysqlAddr
}
func (e *containerEnv) MySQLDSN(database string) string {
	return adminDSN(rootConfig(), e.MySQLAddr(), database)
}
func (e *containerEnv) RedisAddr() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.redisAddr
}
func (e *containerEnv) RedisDB() int { return 0 }
func (e *containerEnv) Versions(ctx context.Context) (map[string]string, error) {
	return versions(ctx, e, &e.pg)
}
func (e *containerEnv) Postgres(ctx context.Context) (*Postgres, error) {
	return e.pg.get(ctx)
}
func (e *containerEnv) MySQL() Control { return &containerControl{c: e.mysql, ready: e.afterStart} }
func (e *containerEnv) Redis() Control { return &containerControl{c: e.redis, ready: e.afterStart} }

// afterStart re-reads the mapped ports and waits until both servers answer.
func (e *containerEnv) afterStart(ctx context.Context) error {
	if err := e.refreshAddrs(ctx); err != nil {
		return err
	}
	return e.waitReady(ctx)
}

// Close terminates the containers.
func (e *containerEnv) Close() error {
	errs := []error{e.pg.close()}
	if e.mysql != nil {
		errs = append(errs, testcontainers.TerminateContainer(e.mysql))
	}
	if e.redis != nil {
		errs = append(errs, testcontainers.TerminateContainer(e.redis))
	}
	return errors.Join(errs...)
}

// containerControl stops and starts one container. Kill is a stop with no
// grace period (SIGKILL right after SIGTERM); ready runs after each start
// (it re-reads the mapped port and waits for the server).
type containerControl struct {
	c     testcontainers.Container
	ready func(ctx context.Context) error
}

func (c *containerControl) Kill() error {
	ctx, cancel := context.WithTimeout(context.Background(), containerStopTimeout)
	defer cancel()
	zero := time.Duration(0)
	if err := c.c.Stop(ctx, &zero); err != nil {
		return fmt.Errorf("kill container: %w", err)
	}
	return nil
}

func (c *containerControl) Start(ctx context.Context) error {
	if err := c.c.Start(ctx); err != nil {
		return fmt.Errorf("start container: %w", err)
	}
	return c.ready(ctx)
}

func (c *containerControl) Restart(ctx context.Context) error {
	grace := 10 * time.Second
	if err := c.c.Stop(ctx, &grace); err != nil {
		return fmt.Errorf("stop container: %w", err)
	}
	return c.Start(ctx)
}
