// Package env selects and opens the MySQL and Redis servers a chaos run
// uses, and the PostgreSQL server of a run whose store is PostgreSQL.
//
// # Environments
//
//   - local: private mariadbd (or mysqld) and redis-server processes started
//     by package localenv on free loopback ports with temporary data
//     directories. The harness can kill and restart both (Control), and the
//     ports stay the same across restarts. This is the default when the
//     binaries are installed (`apt-get install mariadb-server redis-server`).
//   - external: servers the user names with OUTBOXCHAOS_MYSQL_DSN (a
//     go-sql-driver DSN, e.g. "root:pw@tcp(127.0.0.1:3306)/") and
//     OUTBOXCHAOS_REDIS_URL (e.g. "redis://127.0.0.1:6379/0"). The harness
//     never kills, restarts, creates or drops anything through the
//     environment itself: MySQL() and Redis() return nil, and the runner
//     creates (and drops) its own database. A Redis URL may carry
//     credentials (redis://:pass@host:port/db, redis://user:pass@host:port/db):
//     the harness's own clients AUTH with them (RedisOptions), and each
//     instance gets them in its OUTBOX_REDIS_URL (RedisURL), pointed at its
//     fault-proxy link; the proxy forwards plain TCP, so the AUTH passes
//     through to the server. TLS (rediss://) is refused: the proxy's
//     protocol-aware faults read the RESP stream, which TLS hides. Open
//     registers both passwords with package redact, so no file of a run
//     folder (the instances' logs included) carries them; staging_test.go
//     proves it end to end with a dispatcher that prints every variable.
//   - testcontainers: MySQL 8.4 (or MariaDB 11, chosen by
//     OUTBOXCHAOS_MYSQL_IMAGE=mariadb:11) and Redis 7 containers through
//     testcontainers-go when a Docker daemon answers. Control stops and
//     starts the containers; Docker may map a different host port after a
//     start, so the environment re-reads it and MySQLAddr/RedisAddr return
//     the new address: a caller holding a proxy must re-point it after Start
//     or Restart.
//
// # Selection
//
// Config.Kind "" or "auto" picks, in order: external when both
// OUTBOXCHAOS_MYSQL_DSN and OUTBOXCHAOS_REDIS_URL are set (only one of them
// is an error); else local when mariadbd/mysqld, mariadb-install-db and
// redis-server are found; else testcontainers when a Docker daemon answers
// within a few seconds; else an error naming what to install. An explicit
// Kind skips the probing (and ignores the DSN and URL unless it is
// "external"). Doctor prints the same decision with the facts behind it,
// and the PostgreSQL decision below (a missing PostgreSQL is said, not an
// error: only an adapter whose store is PostgreSQL needs it).
//
// # PostgreSQL, on demand
//
// Env.Postgres opens the environment's PostgreSQL on its first call and
// returns the same *Postgres on every later one; Close closes it with the
// other servers. Open starts none, so a MySQL run never pays for it: the
// runner asks for it only when the adapter's store is PostgreSQL. Its kind
// is chosen like the environment's, separately:
//
//   - an explicit Kind is used as it is (external then needs
//     OUTBOXCHAOS_POSTGRES_DSN);
//   - auto: external when OUTBOXCHAOS_POSTGRES_DSN is set; else local when
//     postgres and initdb are found (PATH, else /usr/lib/postgresql/*/bin)
//     and, when the harness runs as root, the postgres user exists (initdb
//     and postgres refuse root; see package localenv); else testcontainers
//     when a Docker daemon answers; else an error naming what to install.
//
// local is a private server of package localenv (superuser "postgres"
// without a password; its Control kills it with all its backends and
// restarts it on the same port with the same data, so crash recovery runs).
// external is the server of OUTBOXCHAOS_POSTGRES_DSN, a postgres:// URL or
// a key=value DSN (libpq's PG* variables and password file fill in what it
// leaves out, as pgx reads them); its role must be a superuser or have
// CREATEDB (CREATEROLE too for CreateRole), the server must be 13 or newer,
// and the harness connects without TLS (the fault proxy reads the wire
// protocol), so sslmode=require and verify-* are refused, as are a Unix
// socket and several hosts; Open registers its password with package
// redact, and Control is nil. testcontainers runs postgres:16 with a random
// superuser password, the module's fsync=off replaced by the durable
// defaults; its Control stops and starts the container, and Docker may map
// a new port (RestartInPlace says so).
//
// On any kind the harness makes what a run needs through the admin role:
// CreateDatabase and DropDatabase (WITH (FORCE): sessions still connected
// are ended), and CreateRole, a login role with a password and every
// privilege a dispatcher needs in the run's database (connect, schema
// public, its tables and sequences, present and future), whose current_user
// the history records as the writer; DropRole removes it. Each call opens a
// connection of its own, so a server restart leaves no stale pool. URL,
// URLVia (at a fault-proxy link) and RoleURL give sslmode=disable URLs for
// pgx and its database/sql driver "pgx".
//
// All DSNs an environment returns are admin DSNs for the Go driver with
// parseTime=true, loc=UTC and multiStatements=true, connecting directly (not
// through the fault proxy).
package env
