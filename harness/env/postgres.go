package env

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxchaos/outboxchaos/harness/redact"
)

// minPostgresVersion is the oldest server the harness accepts (13: the
// pg_snapshot functions, DROP DATABASE ... WITH (FORCE)).
const minPostgresVersion = 130000

// Postgres is the PostgreSQL server of an environment, started (or, for an
// external server, connected to) by Env.Postgres on first use. Its URLs
// are postgres:// URLs without TLS (sslmode=disable: the fault proxy reads
// the wire protocol), as pgx and its database/sql driver "pgx" take them.
type Postgres struct {
	kind     string // KindLocal, KindExternal or KindTestcontainers
	user     string // the admin role
	password string // its password, "" for none
	maint    string // the database the admin connects to by default
	addr     func() string
	control  Control
	inPlace  string // why it cannot be restarted in place, "" when it can
	version  string
	close    func() error
}

// Kind is the environment kind the server comes from: "local",
// "external" or "testcontainers".
func (p *Postgres) Kind() string { return p.kind }

// Addr is host:port of the server, direct (not proxied): what a fault
// proxy's link points at. In the testcontainers environment it may change
// after Control().Start or Restart.
func (p *Postgres) Addr() string { return p.addr() }

// User is the admin role the harness connects as (the history's writer
// "harness").
func (p *Postgres) User() string { return p.user }

// Version is the server's server_version, read when it was opened.
func (p *Postgres) Version() string { return p.version }

// URL is the admin's URL of database ("" = the maintenance database: the
// DSN's own for an external server, else postgres), direct.
func (p *Postgres) URL(database string) string { return p.URLVia(p.Addr(), database) }

// URLVia is URL pointed at addr: a fault-proxy link in front of the server.
func (p *Postgres) URLVia(addr, database string) string {
	return pgURL(addr, p.database(database), p.user, p.password)
}

// RoleURL is the URL of database at addr for role with password (a role
// made by CreateRole).
func (p *Postgres) RoleURL(addr, database, role, password string) string {
	return pgURL(addr, p.database(database), role, password)
}

func (p *Postgres) database(name string) string {
	if name == "" {
		return p.maint
	}
	return name
}

// pgURL builds a postgres:// URL without TLS.
func pgURL(addr, database, user, password string) string {
	u := url.URL{Scheme: "postgres", Host: addr, Path: "/" + database, RawQuery: "sslmode=disable"}
	if password != "" {
		u.User = url.UserPassword(user, password)
	} else {
		u.User = url.User(user)
	}
	return u.String()
}

// Control kills and restarts the server; nil for an external one.
func (p *Postgres) Control() Control { return p.control }

// RestartInPlace says why the server cannot be SIGKILLed and started again
// on the same address with the same data (crash recovery, the run's
// fault-proxy links still pointing at it), or "" when it can.
func (p *Postgres) RestartInPlace() string { return p.inPlace }

var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// checkName refuses a database or role name that would need quoting, so
// that every name the harness makes reads the same in SQL, logs and URLs.
func checkName(what, name string) error {
	if !identifier.MatchString(name) {
		return fmt.Errorf("%s name %q: use 1 to 63 lower-case letters, digits and underscores, not starting with a digit", what, name)
	}
	return nil
}

// exec runs statements, in order, on a connection of its own to database
// (a server restart in between leaves no stale pool behind).
func (p *Postgres) exec(ctx context.Context, database string, stmts ...string) error {
	conn, err := pgx.Connect(ctx, p.URL(database))
	if err != nil {
		if code(err) == "3D000" {
			return fmt.Errorf("connect to PostgreSQL at %s: database %s: %w", p.Addr(), p.database(database), errNoDatabase)
		}
		return fmt.Errorf("connect to PostgreSQL at %s: %w", p.Addr(), redact.Error(err))
	}
	defer conn.Close(context.Background())
	for _, stmt := range stmts {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// errNoDatabase is what exec returns for a database that does not exist.
var errNoDatabase = errors.New("no such database")

// code is the SQLSTATE of a server's error, "" for any other error.
func code(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// CreateDatabase creates an empty database owned by the admin role.
func (p *Postgres) CreateDatabase(ctx context.Context, name string) error {
	if err := checkName("database", name); err != nil {
		return err
	}
	if err := p.exec(ctx, "", `CREATE DATABASE "`+name+`"`); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// DropDatabase drops the database if it exists, ending the sessions still
// connected to it (a killed dispatcher's, say): the admin's own, and those
// of the roles CreateRole made, which the admin is a member of.
func (p *Postgres) DropDatabase(ctx context.Context, name string) error {
	if err := checkName("database", name); err != nil {
		return err
	}
	err := p.exec(ctx, "", `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
	if code(err) == "42501" {
		return fmt.Errorf("drop database %s: %w (role %s may not end the sessions still connected to it: "+
			"make it a member of pg_signal_backend, or of the roles connected)", name, err, p.user)
	}
	if err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// CreateRole creates a login role with password and gives it what a
// dispatcher needs in database and nothing else: to connect, create
// temporary tables, use and create in schema public, and every privilege on
// the tables and sequences there, those that exist and those the admin
// creates later. The admin becomes a member of the role (to end its
// sessions in DropDatabase). The role's current_user names the writer in
// the history.
// The password is registered with package redact.
func (p *Postgres) CreateRole(ctx context.Context, role, password, database string) error {
	if err := checkName("role", role); err != nil {
		return err
	}
	if err := checkName("database", database); err != nil {
		return err
	}
	if password == "" {
		return fmt.Errorf("create role %s: give it a password: the servers the harness starts ask every role but the admin for one", role)
	}
	redact.RegisterPassword(password)
	create := `CREATE ROLE "` + role + `" LOGIN PASSWORD ` + quoteLiteral(password)
	r := `"` + role + `"`
	// The admin joins the role so that DropDatabase may end the role's
	// sessions without being a superuser.
	grants := []string{create, `GRANT CONNECT, TEMPORARY, CREATE ON DATABASE "` + database + `" TO ` + r, "GRANT " + r + " TO CURRENT_USER"}
	if err := p.exec(ctx, "", grants...); err != nil {
		return fmt.Errorf("create role %s: %w", role, err)
	}
	err := p.exec(ctx, database,
		"GRANT USAGE, CREATE ON SCHEMA public TO "+r,
		"GRANT ALL ON ALL TABLES IN SCHEMA public TO "+r,
		"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO "+r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO "+r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO "+r,
	)
	if err != nil {
		return fmt.Errorf("grant role %s its privileges in %s: %w", role, database, err)
	}
	return nil
}

// DropRole drops the role if it exists, with what it owns and was granted
// in database ("" or a database already dropped: only the role). The admin
// may DROP OWNED BY the role because CreateRole made it a member.
func (p *Postgres) DropRole(ctx context.Context, role, database string) error {
	if err := checkName("role", role); err != nil {
		return err
	}
	if database != "" {
		if err := checkName("database", database); err != nil {
			return err
		}
		err := p.exec(ctx, database, `DROP OWNED BY "`+role+`"`)
		if err != nil && !missing(err) {
			return fmt.Errorf("drop role %s: what it owns and was granted in %s: %w", role, database, err)
		}
	}
	if err := p.exec(ctx, "", `DROP ROLE IF EXISTS "`+role+`"`); err != nil {
		return fmt.Errorf("drop role %s: %w", role, err)
	}
	return nil
}

// missing reports an error saying the database or the role (42704,
// undefined_object) does not exist.
func missing(err error) bool {
	return errors.Is(err, errNoDatabase) || code(err) == "42704"
}

// quoteLiteral is s as a standard SQL string literal.
func quoteLiteral(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// pgVersion reads server_version and refuses a server older than
// minPostgresVersion.
func pgVersion(ctx context.Context, conn *pgx.Conn) (string, error) {
	var v string
	var num int
	err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int").Scan(&v, &num)
	if err != nil {
		return "", fmt.Errorf("read version: %w", err)
	}
	if num < minPostgresVersion {
		return "", fmt.Errorf("PostgreSQL %s is too old: the harness needs 13 or newer", v)
	}
	return v, nil
}
