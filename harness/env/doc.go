// Package env selects and opens the MySQL and Redis servers a chaos run uses.
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
// "external"). Doctor prints the same decision with the facts behind it.
//
// All DSNs an environment returns are admin DSNs for the Go driver with
// parseTime=true, loc=UTC and multiStatements=true, connecting directly (not
// through the fault proxy).
package env
