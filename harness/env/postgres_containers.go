package env

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"

	"github.com/outboxchaos/outboxchaos/harness/redact"
)

// DefaultPostgresImage is the testcontainers PostgreSQL image.
const DefaultPostgresImage = "postgres:16"

const postgresPort = "5432/tcp"

// pgContainer is a PostgreSQL container and its current host address.
type pgContainer struct {
	c    *tcpostgres.PostgresContainer
	mu   sync.Mutex
	addr string
}

// openContainerPostgres runs DefaultPostgresImage with a random superuser
// password. The module's default command turns fsync off; the command here
// keeps the server's durable defaults, as the local server does.
func openContainerPostgres(ctx context.Context) (*Postgres, error) {
	if err := dockerHealthWithin(ctx); err != nil {
		return nil, fmt.Errorf("no Docker daemon answers (%v): start one (on Debian `apt-get install docker.io`), "+
			"or use %s=local (needs `apt-get install postgresql`) or set %s", err, EnvKind, EnvPostgresDSN)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, containerStartTimeout)
		defer cancel()
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	password := "Oc_" + hex.EncodeToString(b[:])
	redact.RegisterPassword(password)
	c, err := tcpostgres.Run(ctx, DefaultPostgresImage,
		tcpostgres.WithUsername("postgres"), tcpostgres.WithPassword(password), tcpostgres.WithDatabase("postgres"),
		testcontainers.WithCmd("postgres", "-c", "max_connections=300", "-c", "TimeZone=UTC", "-c", "jit=off"),
		tcpostgres.BasicWaitStrategies(),
	)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("run %s container: %w", DefaultPostgresImage, err), terminate(c))
	}
	pc := &pgContainer{c: c}
	ctl := &containerControl{c: c}
	p := &Postgres{
		kind: KindTestcontainers, user: "postgres", password: password, maint: "postgres",
		addr: pc.getAddr, control: ctl,
		inPlace: "the testcontainers environment stops and starts the PostgreSQL container, and Docker may map a new host port " +
			"at the start, which the run's fault-proxy links (pointed at the old one) do not follow; " +
			"run with " + EnvKind + "=local to kill and restart PostgreSQL on the same port",
		close: func() error { return terminate(c) },
	}
	ctl.ready = func(ctx context.Context) error {
		_, err := pc.ready(ctx, p)
		return err
	}
	if p.version, err = pc.ready(ctx, p); err != nil {
		return nil, errors.Join(err, terminate(c))
	}
	return p, nil
}

// terminate removes the container, if there is one.
func terminate(c *tcpostgres.PostgresContainer) error {
	if c == nil {
		return nil
	}
	return testcontainers.TerminateContainer(c)
}

func (pc *pgContainer) getAddr() string {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.addr
}

// ready re-reads the mapped port (Docker may map a new one after a start),
// waits until the server answers and returns its version.
func (pc *pgContainer) ready(ctx context.Context, p *Postgres) (string, error) {
	addr, err := pc.c.PortEndpoint(ctx, postgresPort, "")
	if err != nil {
		return "", fmt.Errorf("postgres container port: %w", err)
	}
	pc.mu.Lock()
	pc.addr = addr
	pc.mu.Unlock()
	var version string
	err = waitUntil(ctx, "postgres container", func(ctx context.Context) error {
		conn, err := pgx.Connect(ctx, p.URL(""))
		if err != nil {
			return redact.Error(err)
		}
		defer conn.Close(context.Background())
		version, err = pgVersion(ctx, conn)
		return err
	})
	return version, err
}
