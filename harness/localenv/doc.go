// Package localenv starts private MariaDB and Redis servers for tests and for
// the harness's "local" environment.
//
// # Servers
//
// StartMariaDB runs mariadbd (or mysqld when no mariadbd is installed) and
// StartRedis runs redis-server, both found on PATH or in /usr/sbin and
// /usr/local/sbin. Each server listens on 127.0.0.1 only, on a free port
// (chosen by listening on 127.0.0.1:0 and closing) or on the port the caller
// gives; the well-known ports 3306 and 6379 are always refused so that a
// private server can never be confused with a shared one. Every server owns a
// temporary directory named outboxchaos-* under os.TempDir() holding its data,
// its socket, its pid file and its logs; Close kills the server and removes
// that directory. Close is idempotent.
//
// # Lifecycle
//
// Kill sends SIGKILL and waits for the process to exit; Stop sends SIGTERM
// and falls back to SIGKILL when the context ends (or after 30 s without a
// deadline). Both keep the data directory, so Start brings the server back on
// the SAME port with the same data and waits until it answers (a MariaDB
// ping over TCP, a Redis PING). When the port is busy on Start, the bind is
// retried for up to 10 s (less if the context ends first); a server started
// on a free port of its own choosing moves to another free port instead if
// its first bind fails. A MariaDB server commits
// with innodb_flush_log_at_trx_commit=2 unless MariaDBOptions.Durable is set:
// a committed transaction survives SIGKILL of the server (the log is in the
// kernel's page cache) but not a crash of the whole machine. A Redis server
// with RedisOptions.Persistence keeps an append-only file and loses nothing
// acknowledged on SIGKILL (Redis writes the file before it replies; the
// fsync every second only matters for a machine crash); without it a
// restart starts empty. A failed start returns the tail of the server's
// logs.
//
// # Fast MariaDB start
//
// mariadb-install-db takes about a second, so it runs once per server
// binary: the initialised data directory is cached as a template under the
// user's cache directory (os.UserCacheDir()/outboxchaos, keyed by the
// binary's path, size and modification time) and copied for each new server.
// The template is built in a scratch directory and renamed into place, so
// concurrent processes never see a half-built one.
//
// # No orphans
//
// Server processes run in their own process group with Pdeathsig=SIGKILL, so
// they die with the process that started them (Linux ties the signal to the
// starting OS thread; Go keeps that thread alive unless a goroutine locked to
// it exits). Each temporary directory holds an owner file naming the pid (and
// its start time) of the process that created it, and a server.pid file for
// the running server. The first Start in a process sweeps stale
// outboxchaos-* directories whose owner is dead: it SIGKILLs any recorded
// server that is still alive, is a mariadbd/mysqld/redis-server and runs in
// that directory (working directory or command line: a recycled pid is never
// killed), then removes the directory. Directories
// without an owner file are never touched.
package localenv
