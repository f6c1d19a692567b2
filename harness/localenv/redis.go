package localenv

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisOptions configures a private Redis server.
type RedisOptions struct {
	// Port to listen on; 0 picks a free port. 6379 is refused.
	Port int
	// Persistence turns on the append-only file, so the data survives Kill
	// and Stop; without it a restarted server is empty. RDB snapshots are off.
	Persistence bool
	// Password, when set, is the server's requirepass: every client must
	// AUTH with it (user "default"). For tests of servers that need AUTH.
	Password string
	// ReplicaOf, when set, is the host:port of a primary this server
	// replicates from (--replicaof); the primary must need no password.
	ReplicaOf string
}

// Validate reports an option localenv cannot honour.
func (o RedisOptions) Validate() error {
	if strings.ContainsAny(o.Password, " \t\r\n\"") {
		return fmt.Errorf("redis password: no spaces or quotes")
	}
	if o.ReplicaOf != "" {
		if _, _, err := splitHostPort(o.ReplicaOf); err != nil {
			return fmt.Errorf("redis replicaof %q: %w", o.ReplicaOf, err)
		}
	}
	return checkPort(o.Port)
}

// Redis is a private redis-server process with its own directory.
type Redis struct {
	server
	version  string
	password string
}

// StartRedis starts redis-server on 127.0.0.1 and waits until it answers
// PING. Keyspace notifications are off; observers turn them on. Close it to
// kill the server and remove its files.
func StartRedis(ctx context.Context, opts RedisOptions) (*Redis, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("start redis: %w", err)
	}
	bin, err := RedisBinary()
	if err != nil {
		return nil, fmt.Errorf("start redis: %w", err)
	}
	sweepStaleOnce()
	dir, err := newServerDir("redis")
	if err != nil {
		return nil, fmt.Errorf("start redis: %w", err)
	}
	r := &Redis{password: opts.Password}
	if err := launch(ctx, &r.server, dir, redisSpec(bin, dir, opts), opts.Port, r.identify); err != nil {
		return nil, fmt.Errorf("start redis: %w", err)
	}
	return r, nil
}

// identify reads the running server's version.
func (r *Redis) identify(ctx context.Context) error {
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), Password: r.password, MaxRetries: -1})
	defer c.Close()
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return fmt.Errorf("read version: %w", err)
	}
	r.version = infoField(info, "redis_version")
	if r.version == "" {
		return fmt.Errorf("INFO server has no redis_version")
	}
	return nil
}

// infoField returns the value of name in an INFO reply.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

func redisSpec(bin, dir string, opts RedisOptions) serverSpec {
	stdout := filepath.Join(dir, "redis.log")
	aof := "no"
	if opts.Persistence {
		aof = "yes"
	}
	return serverSpec{
		kind:   "redis",
		bin:    bin,
		dir:    dir,
		stdout: stdout,
		logs:   []string{stdout},
		ping:   func(ctx context.Context, addr string) error { return pingRedis(ctx, addr, opts.Password) },
		args: func(port int) []string {
			args := []string{
				"--port", strconv.Itoa(port),
				"--bind", "127.0.0.1",
				"--dir", dir,
				"--pidfile", filepath.Join(dir, "redis.pid"),
				"--logfile", "",
				"--daemonize", "no",
				"--save", "",
				"--appendonly", aof,
				// Every write reaches the file before the reply: a SIGKILL
				// loses nothing, as a restart scenario needs.
				"--appendfsync", "always",
				"--notify-keyspace-events", "",
				// A replica (RedisOptions.ReplicaOf) syncs at once, not
				// after Redis's default 5 s wait for more replicas.
				"--repl-diskless-sync-delay", "0",
			}
			if opts.Password != "" {
				args = append(args, "--requirepass", opts.Password)
			}
			if host, port, err := splitHostPort(opts.ReplicaOf); err == nil {
				args = append(args, "--replicaof", host, port)
			}
			return args
		},
	}
}

// pingRedis opens one connection and sends PING; a server still loading its
// append-only file answers LOADING, which counts as not ready.
func pingRedis(ctx context.Context, addr, password string) error {
	c := redis.NewClient(&redis.Options{
		Addr: addr, Password: password, MaxRetries: -1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
		ContextTimeoutEnabled: true,
	})
	defer c.Close()
	return c.Ping(ctx).Err()
}

// URL is "redis://127.0.0.1:PORT/db", or "redis://:PASSWORD@127.0.0.1:PORT/db"
// for a server started with a Password.
func (r *Redis) URL(db int) string {
	if r.password != "" {
		return fmt.Sprintf("redis://:%s@%s/%d", url.PathEscape(r.password), r.Addr(), db)
	}
	return fmt.Sprintf("redis://%s/%d", r.Addr(), db)
}

// Version is the server's redis_version, read at the first start.
func (r *Redis) Version() string { return r.version }

// splitHostPort splits a host:port whose port is a number.
func splitHostPort(addr string) (string, string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", "", err
	}
	if _, err := strconv.Atoi(port); err != nil || host == "" {
		return "", "", fmt.Errorf("want host:port with a numeric port")
	}
	return host, port, nil
}

// WaitLinked waits until this server, a replica, reports its link to the
// primary up, so that the primary's WAIT counts it (ReplicaLinked).
func (r *Redis) WaitLinked(ctx context.Context) error {
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), Password: r.password, MaxRetries: -1})
	defer c.Close()
	return ReplicaLinked(ctx, c)
}

// ReplicaLinked waits until the replica c talks to reports its link to the
// primary up (INFO replication's master_link_status), or ctx ends.
func ReplicaLinked(ctx context.Context, c *redis.Client) error {
	for {
		info, err := c.Info(ctx, "replication").Result()
		if err == nil && infoField(info, "master_link_status") == "up" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redis replica %s: link to its primary not up: %w (last INFO error: %v)", c.Options().Addr, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
