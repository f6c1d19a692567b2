// Package localenv starts private MariaDB, Redis and PostgreSQL servers for
// tests and for the harness's "local" environment.
//
// # Servers
//
// StartMariaDB runs mariadbd (or mysqld when no mariadbd is installed) and
// StartRedis runs redis-server, both found on PATH or in /usr/sbin and
// /usr/local/sbin. StartPostgres runs postgres, taken with its initdb from
// one directory: the first of PATH, /usr/sbin and /usr/local/sbin holding
// both, else the newest /usr/lib/postgresql/VERSION/bin (Debian's place,
// not on PATH). Each server listens on 127.0.0.1 only, on a free port
// (chosen by listening on 127.0.0.1:0 and closing) or on the port the caller
// gives; the well-known ports 3306, 5432 and 6379 are always refused so that
// a private server can never be confused with a shared one. Every server owns a
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
// # PostgreSQL
//
// initdb and postgres refuse to run as root. When this process is root,
// both run as an unprivileged account (PostgresOptions.User, by default
// "postgres", which Debian's postgresql package creates) through the
// credentials of the child process: the postmaster is still this process's
// direct child, so Kill, Start and the parent-death signal work as for the
// other servers. The server's directory and data belong to that account, and
// every directory above it must let the account through (StartPostgres says
// which one does not; t.TempDir() does not, os.TempDir() does). Without root
// the server runs as this process's user.
//
// The data directory is initialised with initdb (UTF-8, no locale,
// superuser "postgres"). pg_hba.conf trusts the superuser on 127.0.0.1 and
// on the Unix socket (in the server's directory), as MariaDB's root has no
// password, and asks every other role for its password (scram-sha-256).
// Settings passed on the command line: listen_addresses=127.0.0.1,
// max_connections=300, shared_buffers=64MB, TimeZone=UTC, jit=off (no
// compile time in short test queries), and fsync, synchronous_commit and
// full_page_writes on, spelled out although they are the defaults, because
// a restart scenario must recover exactly what PostgreSQL acknowledged, as
// after a real crash: synchronous_commit=off acknowledges a commit before its
// WAL is written, and a kill of the server loses it; fsync=off leaves the WAL
// in the kernel's page cache, which survives a kill but not a crash of the
// machine, and PostgreSQL documents it as a risk of unrecoverable corruption;
// without full_page_writes a data page being written when the kill comes
// (the kernel copies it 4 kB at a time) may be left torn, and recovery
// cannot repair it. The price is one WAL flush per commit, shared by the
// commits that arrive together (group commit).
//
// Kill SIGKILLs the postmaster and every process it forked: the backends
// and auxiliary processes start sessions of their own, so the process group
// does not reach them; they are found by their working directory, the data
// directory, while the postmaster is stopped (SIGSTOP) so that it forks
// nothing new. That is a crash of the whole server: no backend lives on to
// finish a commit, and no process stays attached to the old shared memory,
// which would make the next start refuse. Start then runs on the same port
// with the same data, and PostgreSQL's crash recovery replays the WAL before
// it accepts connections (readiness is a connection and a ping). Stop sends
// SIGINT, the fast shutdown: active transactions are rolled back and
// clients disconnected (SIGTERM would wait for every client to leave).
//
// # Fast MariaDB start
//
// mariadb-install-db and initdb take about a second, so each runs once per
// server binary: the initialised data directory is cached as a template under the
// user's cache directory (os.UserCacheDir()/outboxchaos, keyed by the
// binary's path, size and modification time) and copied for each new server.
// The template is built in a scratch directory and renamed into place, so
// concurrent processes never see a half-built one. initdb runs as the
// server's account in a server directory of its own under os.TempDir() (the
// cache may be in root's home, closed to that account); its result is copied
// into the cache, and each PostgreSQL server's copy is handed to the
// account.
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
// server that is still alive, is a mariadbd/mysqld/redis-server/postgres and
// runs in that directory (working directory or command line: a recycled pid
// is never killed), and every other such server process whose working
// directory is in it (PostgreSQL's backends), then removes the directory.
// Directories without an owner file are never touched.
package localenv
