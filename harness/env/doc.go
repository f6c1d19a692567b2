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
//     creates (and drops) its own database. Redis URLs with credentials or TLS
//     are refused, because the harness reaches Redis through a plain TCP fault
//     proxy with only an address and a database number.
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
