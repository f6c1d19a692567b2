package localenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

const (
	bufferPoolSize = "64M"
	logFileSize    = "16M"
)

// MariaDBOptions configures a private MariaDB server.
type MariaDBOptions struct {
	// Port to listen on; 0 picks a free port. 3306 is refused.
	Port int
	// ExtraArgs are appended to the mariadbd command line (each "--name[=value]").
	// The options localenv manages (port, datadir, socket, ...) are refused.
	ExtraArgs []string
	// Durable commits with innodb_flush_log_at_trx_commit=1 (flushed to disk)
	// instead of 2 (written to the OS at commit, safe against a server kill).
	Durable bool
}

// managedArgs are mariadbd options localenv sets itself.
var managedArgs = []string{
	"--no-defaults", "--defaults-file", "--defaults-extra-file", "--datadir", "--socket",
	"--port", "--bind-address", "--pid-file", "--log-error", "--user", "--skip-grant-tables",
	"--tmpdir",
}

// Validate reports an option localenv cannot honour.
func (o MariaDBOptions) Validate() error {
	if err := checkPort(o.Port); err != nil {
		return err
	}
	for _, a := range o.ExtraArgs {
		if !strings.HasPrefix(a, "--") {
			return fmt.Errorf("extra mariadbd argument %q: write it as --name or --name=value", a)
		}
		name, _, _ := strings.Cut(strings.ReplaceAll(a, "_", "-"), "=")
		for _, m := range managedArgs {
			if name == m {
				return fmt.Errorf("extra mariadbd argument %q: %s is managed by localenv, remove it", a, m)
			}
		}
	}
	return nil
}

// MariaDB is a private mariadbd process with its own data directory.
type MariaDB struct {
	server
	version string
}

// StartMariaDB initialises a data directory (a copy of a cached template),
// starts mariadbd on 127.0.0.1 and waits until it answers a ping. Root has
// an empty password. Close it to kill the server and remove its files.
func StartMariaDB(ctx context.Context, opts MariaDBOptions) (*MariaDB, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	bin, err := MariaDBBinary()
	if err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	sweepStaleOnce()
	tmpl, err := mariadbTemplate(ctx, bin)
	if err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	dir, err := newServerDir("mariadb")
	if err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	if err := copyTree(filepath.Join(tmpl, "data"), filepath.Join(dir, "data")); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start mariadb: copy template data directory: %w", err)
	}
	m := &MariaDB{}
	if err := launch(ctx, &m.server, dir, mariadbSpec(bin, dir, opts), opts.Port, m.identify); err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	return m, nil
}

// identify reads the running server's version.
func (m *MariaDB) identify(ctx context.Context) error {
	db, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&m.version); err != nil {
		return fmt.Errorf("read version: %w", err)
	}
	return nil
}

func mariadbSpec(bin, dir string, opts MariaDBOptions) serverSpec {
	errLog := filepath.Join(dir, "error.log")
	stdout := filepath.Join(dir, "stdout.log")
	flush := "2"
	if opts.Durable {
		flush = "1"
	}
	return serverSpec{
		kind:   "mariadb",
		bin:    bin,
		dir:    dir,
		stdout: stdout,
		logs:   []string{errLog, stdout},
		ping:   pingMariaDB,
		args: func(port int) []string {
			args := []string{
				"--no-defaults",
				"--datadir=" + filepath.Join(dir, "data"),
				"--socket=" + filepath.Join(dir, "mysqld.sock"),
				"--port=" + strconv.Itoa(port),
				"--bind-address=127.0.0.1",
				"--default-time-zone=+00:00",
				"--pid-file=" + filepath.Join(dir, "mysqld.pid"),
				"--log-error=" + errLog,
				"--tmpdir=" + dir,
				"--skip-name-resolve",
				"--max-connections=500",
				"--innodb-buffer-pool-size=" + bufferPoolSize,
				"--innodb-log-file-size=" + logFileSize,
				"--innodb-flush-log-at-trx-commit=" + flush,
				"--character-set-server=utf8mb4",
			}
			if os.Geteuid() == 0 {
				args = append(args, "--user=root")
			}
			return append(args, opts.ExtraArgs...)
		},
	}
}

// pingMariaDB opens one TCP connection as root and pings.
func pingMariaDB(ctx context.Context, addr string) error {
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "tcp"
	cfg.Addr = addr
	cfg.Timeout = time.Second
	cfg.ReadTimeout = time.Second
	cfg.WriteTimeout = time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	return db.PingContext(ctx)
}

// DSN is a go-sql-driver DSN for root on database ("" for none), with
// parseTime, UTC and multi-statements.
func (m *MariaDB) DSN(database string) string {
	return fmt.Sprintf("root@tcp(%s)/%s?parseTime=true&loc=UTC&multiStatements=true", m.Addr(), database)
}

// Version is the server's SELECT VERSION(), read at the first start.
func (m *MariaDB) Version() string { return m.version }
