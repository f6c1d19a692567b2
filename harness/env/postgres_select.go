package env

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
)

// postgresAdvice says what makes some PostgreSQL environment available.
const postgresAdvice = "install PostgreSQL with `apt-get install postgresql` (the server and initdb; as root the harness runs them as the postgres user it creates), " +
	"or start a Docker daemon for testcontainers, " +
	"or set " + EnvPostgresDSN + " to use an external server"

// postgresPart is an environment's PostgreSQL, opened on the first
// Postgres call (a MySQL run never pays for it) and closed with the
// environment.
type postgresPart struct {
	cfg    Config
	probes *probes // nil: the system's
	mu     sync.Mutex
	pg     *Postgres
	closed bool
}

// get opens the server on the first call and returns it on every call.
func (p *postgresPart) get(ctx context.Context) (*Postgres, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("postgres: the environment is closed")
	}
	if p.pg != nil {
		return p.pg, nil
	}
	pr := systemProbes()
	if p.probes != nil {
		pr = *p.probes
	}
	d, err := decidePostgres(ctx, p.cfg, pr)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	var pg *Postgres
	switch d.Kind {
	case KindLocal:
		pg, err = openLocalPostgres(ctx)
	case KindExternal:
		pg, err = openExternalPostgres(ctx, p.cfg.PostgresDSN)
	case KindTestcontainers:
		pg, err = openContainerPostgres(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s PostgreSQL: %w", d.Kind, err)
	}
	p.pg = pg
	return pg, nil
}

// version is the opened server's version, "" when none was opened.
func (p *postgresPart) version() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pg == nil {
		return ""
	}
	return p.pg.version
}

// close closes the server if one was opened; later gets fail.
func (p *postgresPart) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.pg == nil {
		return nil
	}
	pg := p.pg
	p.pg = nil
	if err := pg.close(); err != nil {
		return fmt.Errorf("close %s PostgreSQL: %w", pg.kind, err)
	}
	return nil
}

// decidePostgres picks the PostgreSQL environment as the package doc says:
// an explicit Kind is used as it is; auto takes external when
// OUTBOXCHAOS_POSTGRES_DSN is set, else local when postgres, initdb and
// (under root) the postgres user are there, else testcontainers when Docker
// answers.
func decidePostgres(ctx context.Context, cfg Config, p probes) (Decision, error) {
	switch k := cfg.kind(); k {
	case KindLocal, KindTestcontainers:
		return Decision{Kind: k, Reason: fmt.Sprintf("chosen by %s=%s", EnvKind, k)}, nil
	case KindExternal:
		if cfg.PostgresDSN == "" {
			return Decision{}, fmt.Errorf("%s=external needs %s for an adapter whose store is PostgreSQL", EnvKind, EnvPostgresDSN)
		}
		return Decision{Kind: KindExternal, Reason: fmt.Sprintf("chosen by %s=external", EnvKind)}, nil
	}
	if cfg.PostgresDSN != "" {
		return Decision{Kind: KindExternal, Reason: EnvPostgresDSN + " is set"}, nil
	}
	found, localErr := localPostgres(p)
	if localErr == nil {
		return Decision{Kind: KindLocal, Reason: "local PostgreSQL found: " + strings.Join(found, ", ")}, nil
	}
	dctx, cancel := context.WithTimeout(ctx, dockerProbeTimeout)
	defer cancel()
	dockerErr := p.docker(dctx)
	if dockerErr == nil {
		return Decision{Kind: KindTestcontainers, Reason: "local PostgreSQL missing (" + localErr.Error() + "); a Docker daemon answers"}, nil
	}
	return Decision{}, fmt.Errorf("no PostgreSQL environment available: %v; no Docker daemon answers (%v): %s", localErr, dockerErr, postgresAdvice)
}

// localPostgres returns what a local PostgreSQL needs (the binaries and the
// account the server runs as), or an error naming every missing part.
func localPostgres(p probes) ([]string, error) {
	var found, missing []string
	for _, look := range []func() (string, error){p.pgServer, p.pgInitdb, p.pgAccount} {
		v, err := look()
		if err != nil {
			if !slices.Contains(missing, err.Error()) { // postgres and initdb are found together
				missing = append(missing, err.Error())
			}
			continue
		}
		found = append(found, v)
	}
	if len(missing) > 0 {
		return found, errors.New(strings.Join(missing, "; "))
	}
	return found, nil
}

// openLocalPostgres starts a private server (package localenv).
func openLocalPostgres(ctx context.Context) (*Postgres, error) {
	srv, err := localenv.StartPostgres(ctx, localenv.PostgresOptions{})
	if err != nil {
		return nil, err
	}
	return &Postgres{
		kind: KindLocal, user: localenv.PostgresSuperuser, maint: "postgres",
		addr: srv.Addr, control: srv, version: srv.Version(), close: srv.Close,
	}, nil
}

// The local server already has the Control methods.
var _ Control = (*localenv.Postgres)(nil)

// pgServerProbe, pgInitdbProbe and pgAccountProbe find what a local
// PostgreSQL needs.
func pgServerProbe() (string, error) {
	p, _, err := localenv.PostgresBinaries()
	return p, err
}

func pgInitdbProbe() (string, error) {
	_, i, err := localenv.PostgresBinaries()
	return i, err
}

func pgAccountProbe() (string, error) {
	a, err := localenv.PostgresAccount("")
	if err != nil {
		return "", err
	}
	return "runs as " + a, nil
}
