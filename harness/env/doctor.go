package env

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// tool is one program Doctor reports on.
type tool struct {
	name    string
	find    func() (string, error)
	version []string // arguments printing its version; nil = none
}

func doctorTools(p probes) []tool {
	return []tool{
		{"mariadbd", p.mariadb, []string{"--version"}},
		{"mariadb-install-db", p.installer, nil},
		{"redis-server", p.redis, []string{"--version"}},
		{"node", p.node, []string{"--version"}},
		{"postgres", p.pgServer, []string{"--version"}},
		{"initdb", p.pgInitdb, []string{"--version"}},
		{"postgres account", p.pgAccount, nil},
	}
}

// findNode looks node up on PATH; black-box dispatchers written for Node need it.
func findNode() (string, error) {
	p, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("node not found on PATH: install it with `apt-get install nodejs`")
	}
	return p, nil
}

// Doctor writes which environment Open would use and why, which one
// Env.Postgres would open, the binaries it found with their versions (and
// the account a local PostgreSQL runs as), whether a Docker daemon answers,
// and what to install when nothing fits. It returns the selection error of
// the MySQL and Redis environment, if any: PostgreSQL is needed only by an
// adapter whose store is PostgreSQL, so a missing one is said, not an error.
func Doctor(ctx context.Context, cfg Config, w io.Writer) error {
	return doctor(ctx, cfg, w, systemProbes())
}

func doctor(ctx context.Context, cfg Config, w io.Writer, p probes) error {
	out := &errWriter{w: w}
	out.printf("outboxchaos doctor\n")
	out.printf("config: %s=%q %s=%s %s=%s %s=%q %s=%s\n", EnvKind, cfg.Kind,
		EnvMySQLDSN, presence(cfg.MySQLDSN), EnvRedisURL, presence(cfg.RedisURL), EnvMySQLImage, cfg.MySQLImage,
		EnvPostgresDSN, presence(cfg.PostgresDSN))
	out.printf("tools:\n")
	for _, t := range doctorTools(p) {
		out.printf("  %-20s %s\n", t.name+":", describeTool(ctx, t))
	}
	dctx, cancel := context.WithTimeout(ctx, dockerProbeTimeout)
	dockerErr := p.docker(dctx)
	cancel()
	if dockerErr == nil {
		out.printf("  %-20s reachable\n", "docker daemon:")
	} else {
		out.printf("  %-20s not reachable (%v)\n", "docker daemon:", dockerErr)
	}
	p.docker = func(context.Context) error { return dockerErr } // asked once above
	err := doctorMain(ctx, cfg, out, p)
	doctorPostgres(ctx, cfg, out, p)
	return errors.Join(err, out.err)
}

// doctorMain writes the choice of the MySQL and Redis environment and
// returns its problem.
func doctorMain(ctx context.Context, cfg Config, out *errWriter, p probes) error {
	d, err := decide(ctx, cfg, p)
	if err != nil {
		out.printf("environment: none\nproblem: %v\n", err)
		return err
	}
	out.printf("environment: %s\nreason: %s\n", d.Kind, d.Reason)
	if d.Kind == KindExternal {
		if _, perr := parseExternal(cfg); perr != nil {
			out.printf("problem: %v\n", perr)
			return perr
		}
	}
	return nil
}

// doctorPostgres writes the choice Env.Postgres would make.
func doctorPostgres(ctx context.Context, cfg Config, out *errWriter, p probes) {
	d, err := decidePostgres(ctx, cfg, p)
	if err == nil && d.Kind == KindExternal {
		_, err = parsePostgresDSN(cfg.PostgresDSN)
	}
	if err != nil {
		out.printf("postgresql environment: none (needed only by an adapter whose store is PostgreSQL)\npostgresql problem: %v\n", err)
		return
	}
	out.printf("postgresql environment: %s (opened only for an adapter whose store is PostgreSQL)\npostgresql reason: %s\n", d.Kind, d.Reason)
}

// presence hides a DSN or URL (it may hold a password).
func presence(s string) string {
	if s == "" {
		return "(unset)"
	}
	return "(set)"
}

// describeTool is "path (version)" or the lookup error.
func describeTool(ctx context.Context, t tool) string {
	path, err := t.find()
	if err != nil {
		return "missing: " + err.Error()
	}
	if t.version == nil {
		return path
	}
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := exec.CommandContext(vctx, path, t.version...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s (version unknown: %v)", path, err)
	}
	return fmt.Sprintf("%s (%s)", path, firstLine(string(b)))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// errWriter keeps the first write error so Doctor can print freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
