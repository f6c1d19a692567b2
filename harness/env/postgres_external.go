package env

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/outboxchaos/outboxchaos/harness/redact"
)

// parsePostgresDSN reads OUTBOXCHAOS_POSTGRES_DSN (a postgres:// URL or a
// key=value DSN, with libpq's PG* variables and password file filling what
// it leaves out, as pgx reads them) into an external server without
// connecting. It refuses what the fault proxy cannot stand in front of: a
// Unix socket, several hosts, TLS that may not fall back to plain TCP.
func parsePostgresDSN(dsn string) (*Postgres, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s is not a PostgreSQL URL or key=value DSN (want postgres://user:password@host:port/database): %w",
			EnvPostgresDSN, redact.Error(err))
	}
	c := cfg.Config
	if strings.HasPrefix(c.Host, "/") {
		return nil, fmt.Errorf("%s connects through the Unix socket in %s: the fault proxy needs TCP, name a host and port (postgres://user:password@127.0.0.1:5432/postgres)",
			EnvPostgresDSN, c.Host)
	}
	plain := c.TLSConfig == nil
	for _, f := range c.Fallbacks {
		if f.Host != c.Host || f.Port != c.Port {
			return nil, fmt.Errorf("%s names several hosts (%s:%d, %s:%d): name one, the fault proxy forwards to one server",
				EnvPostgresDSN, c.Host, c.Port, f.Host, f.Port)
		}
		plain = plain || f.TLSConfig == nil
	}
	if !plain {
		return nil, fmt.Errorf("%s requires TLS (sslmode=require or verify-*): the fault proxy's protocol-aware faults read the wire protocol, which TLS hides; "+
			"use sslmode=disable or prefer (the harness connects without TLS)", EnvPostgresDSN)
	}
	addr := net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port)))
	return &Postgres{
		kind: KindExternal, user: c.User, password: c.Password, maint: cmp.Or(c.Database, "postgres"),
		addr: func() string { return addr },
		inPlace: "the external environment's PostgreSQL belongs to you: the harness never kills or restarts it " +
			"(run with " + EnvKind + "=local for a private server it can crash)",
		close: func() error { return nil },
	}, nil
}

// openExternalPostgres parses dsn, registers its password with package
// redact, and checks that the server answers, is new enough and lets the
// role create databases (the harness makes one per run there).
func openExternalPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	p, err := parsePostgresDSN(dsn)
	if err != nil {
		return nil, err
	}
	redact.Register(dsn)
	redact.RegisterPassword(p.password)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, externalConnectTimeout)
		defer cancel()
	}
	conn, err := pgx.Connect(ctx, p.URL(""))
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL at %s (from %s): %w", p.Addr(), EnvPostgresDSN, redact.Error(err))
	}
	defer conn.Close(context.Background())
	if p.version, err = pgVersion(ctx, conn); err != nil {
		return nil, fmt.Errorf("PostgreSQL at %s: %w", p.Addr(), err)
	}
	var mayCreate bool
	if err := conn.QueryRow(ctx, "SELECT rolsuper OR rolcreatedb FROM pg_roles WHERE rolname = current_user").Scan(&mayCreate); err != nil {
		return nil, fmt.Errorf("PostgreSQL at %s: read the privileges of role %s: %w", p.Addr(), p.user, err)
	}
	if !mayCreate {
		return nil, fmt.Errorf("role %s of %s may not create databases, and the harness makes one per run: "+
			"`ALTER ROLE %s CREATEDB` (and CREATEROLE for per-instance roles), or name a superuser", p.user, EnvPostgresDSN, p.user)
	}
	return p, nil
}
