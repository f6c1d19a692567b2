package localenv

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// minPostgresVersion is the oldest server the harness accepts (13: the
// pg_snapshot functions, DROP DATABASE ... WITH (FORCE)).
const minPostgresVersion = 130000

// PostgresOptions configures a private PostgreSQL server.
type PostgresOptions struct {
	// Port to listen on; 0 picks a free port. 5432 is refused.
	Port int
	// User is the operating-system account the server runs as when this
	// process runs as root ("" = DefaultPostgresUser). Without root the
	// server runs as this process's user, which User may only name.
	User string
	// Settings are extra server settings, each passed as -c name=value
	// after localenv's own. The ones localenv manages (port, addresses,
	// directories, files) are refused.
	Settings map[string]string
}

// managedSettings are server settings localenv sets itself.
var managedSettings = map[string]bool{
	"port": true, "listen_addresses": true, "unix_socket_directories": true, "data_directory": true,
	"config_file": true, "hba_file": true, "ident_file": true, "external_pid_file": true,
}

var settingName = regexp.MustCompile(`^[a-z_][a-z0-9_.]*$`)

// Validate reports an option localenv cannot honour.
func (o PostgresOptions) Validate() error {
	if err := checkPort(o.Port); err != nil {
		return err
	}
	for name, value := range o.Settings {
		switch {
		case !settingName.MatchString(name):
			return fmt.Errorf("postgres setting %q: write its name in lower case, as in postgresql.conf", name)
		case managedSettings[name]:
			return fmt.Errorf("postgres setting %q is managed by localenv, remove it", name)
		case strings.ContainsAny(value, "\n\r\x00"):
			return fmt.Errorf("postgres setting %s: the value must be one line", name)
		}
	}
	return nil
}

// Postgres is a private postgres process (the postmaster) with its own data
// directory.
type Postgres struct {
	server
	version string
	user    string
}

// StartPostgres initialises a data directory (a copy of a cached template
// made by initdb), starts postgres on 127.0.0.1 and waits until it accepts
// connections. The superuser PostgresSuperuser has no password. Close it to
// kill the server and remove its files.
func StartPostgres(ctx context.Context, opts PostgresOptions) (*Postgres, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	bin, initdb, err := PostgresBinaries()
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	acct, err := postgresAccount(opts.User)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	sweepStaleOnce()
	tmpl, err := postgresTemplate(ctx, bin, initdb, acct)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	dir, err := postgresDir(tmpl, acct)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	p := &Postgres{user: acct.name}
	if err := launch(ctx, &p.server, dir, postgresSpec(bin, dir, acct, opts), opts.Port, p.identify); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	return p, nil
}

// postgresDir makes the server's directory with a copy of the template's
// data directory, all of it the account's.
func postgresDir(tmpl string, acct pgAccount) (string, error) {
	dir, err := newServerDir("postgres")
	if err != nil {
		return "", err
	}
	err = acct.checkReach(dir)
	if err == nil {
		err = copyTree(filepath.Join(tmpl, "data"), filepath.Join(dir, "data"))
	}
	if err == nil {
		err = acct.chownTree(dir)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("prepare data directory: %w", err)
	}
	return dir, nil
}

// identify reads the running server's version and refuses one older than
// minPostgresVersion.
func (p *Postgres) identify(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, p.URL(""))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	var num int
	err = conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int").Scan(&p.version, &num)
	if err != nil {
		return fmt.Errorf("read version: %w", err)
	}
	if num < minPostgresVersion {
		return fmt.Errorf("PostgreSQL %s is too old: the harness needs 13 or newer", p.version)
	}
	return nil
}

// The server's settings: see the package doc for why each.
func postgresSettings(dir string, opts PostgresOptions) []string {
	base := []string{
		"listen_addresses=127.0.0.1",
		"unix_socket_directories=" + dir,
		"max_connections=300",
		"shared_buffers=64MB",
		"fsync=on",
		"synchronous_commit=on",
		"full_page_writes=on",
		"TimeZone=UTC",
		"log_timezone=UTC",
		"jit=off",
	}
	names := make([]string, 0, len(opts.Settings))
	for name := range opts.Settings {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		base = append(base, name+"="+opts.Settings[name])
	}
	return base
}

func postgresSpec(bin, dir string, acct pgAccount, opts PostgresOptions) serverSpec {
	stdout := filepath.Join(dir, "postgres.log")
	return serverSpec{
		kind:       "postgres",
		bin:        bin,
		dir:        dir,
		stdout:     stdout,
		logs:       []string{stdout},
		ping:       pingPostgres,
		cred:       acct.cred,
		stopSignal: syscall.SIGINT, // fast shutdown: SIGTERM waits for every client to leave
		args: func(port int) []string {
			args := []string{"-D", filepath.Join(dir, "data"), "-p", strconv.Itoa(port)}
			for _, s := range postgresSettings(dir, opts) {
				args = append(args, "-c", s)
			}
			return args
		},
	}
}

// pingPostgres connects over TCP as the superuser and pings; a server in
// crash recovery refuses the connection, which counts as not ready.
func pingPostgres(ctx context.Context, addr string) error {
	cfg, err := pgx.ParseConfig(postgresURL(addr, ""))
	if err != nil {
		return err
	}
	cfg.ConnectTimeout = time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx)
}

// postgresURL is the superuser's URL of database ("" = postgres) at addr.
func postgresURL(addr, database string) string {
	if database == "" {
		database = "postgres"
	}
	return "postgres://" + PostgresSuperuser + "@" + addr + "/" + url.PathEscape(database) + "?sslmode=disable"
}

// URL is a postgres:// URL of database ("" = postgres) for the superuser,
// without TLS, as pgx (and its database/sql driver "pgx") takes it.
func (p *Postgres) URL(database string) string { return postgresURL(p.Addr(), database) }

// Version is the server's server_version, read at the first start.
func (p *Postgres) Version() string { return p.version }

// User is the operating-system account the server runs as.
func (p *Postgres) User() string { return p.user }

// DataDir is the server's data directory (kept across Kill, Stop and Start).
func (p *Postgres) DataDir() string { return filepath.Join(p.Dir(), "data") }
