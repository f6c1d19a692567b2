package env

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
)

// dockerProbeTimeout bounds the wait for a Docker daemon's answer.
const dockerProbeTimeout = 5 * time.Second

// installAdvice says what makes some environment available.
const installAdvice = "install the local servers with `apt-get install mariadb-server redis-server`, " +
	"or start a Docker daemon for testcontainers, " +
	"or set " + EnvMySQLDSN + " and " + EnvRedisURL + " to use external servers"

// probes finds what the machine offers; tests inject fakes.
type probes struct {
	mariadb   func() (string, error)          // server binary
	installer func() (string, error)          // mariadb-install-db
	redis     func() (string, error)          // redis-server binary
	docker    func(ctx context.Context) error // nil when a daemon answers
	node      func() (string, error)          // shown by Doctor only
	pgServer  func() (string, error)          // postgres
	pgInitdb  func() (string, error)          // initdb, from postgres's directory
	pgAccount func() (string, error)          // the account postgres runs as
}

func systemProbes() probes {
	return probes{
		mariadb:   localenv.MariaDBBinary,
		installer: func() (string, error) { return localenv.FindBinary("mariadb-install-db", "mysql_install_db") },
		redis:     localenv.RedisBinary,
		docker:    dockerHealth,
		node:      findNode,
		pgServer:  pgServerProbe,
		pgInitdb:  pgInitdbProbe,
		pgAccount: pgAccountProbe,
	}
}

// Decision is the chosen environment and why.
type Decision struct {
	Kind   string
	Reason string
}

// decide applies the selection order of the package doc. Probes run only
// when needed: Docker is not asked when the local binaries exist.
func decide(ctx context.Context, cfg Config, p probes) (Decision, error) {
	if err := cfg.Validate(); err != nil {
		return Decision{}, err
	}
	switch k := cfg.kind(); k {
	case KindExternal, KindLocal, KindTestcontainers:
		return Decision{Kind: k, Reason: fmt.Sprintf("chosen by %s=%s", EnvKind, k)}, nil
	}
	if cfg.MySQLDSN != "" && cfg.RedisURL != "" {
		return Decision{Kind: KindExternal, Reason: EnvMySQLDSN + " and " + EnvRedisURL + " are set"}, nil
	}
	found, localErr := localBinaries(p)
	if localErr == nil {
		return Decision{Kind: KindLocal, Reason: "local servers found: " + strings.Join(found, ", ")}, nil
	}
	dctx, cancel := context.WithTimeout(ctx, dockerProbeTimeout)
	defer cancel()
	dockerErr := p.docker(dctx)
	if dockerErr == nil {
		return Decision{Kind: KindTestcontainers, Reason: "local servers missing (" + localErr.Error() + "); a Docker daemon answers"}, nil
	}
	return Decision{}, fmt.Errorf("no environment available: %v; no Docker daemon answers (%v): %s", localErr, dockerErr, installAdvice)
}

// localBinaries returns the paths of the local server binaries, or an
// error naming every missing one.
func localBinaries(p probes) ([]string, error) {
	var found []string
	var errs []error
	for _, look := range []func() (string, error){p.mariadb, p.installer, p.redis} {
		path, err := look()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		found = append(found, path)
	}
	if len(errs) == 0 {
		return found, nil
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return found, errors.New(strings.Join(msgs, "; "))
}
