package localenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// pgTemplateFormat changes whenever the initdb arguments or the written
// pg_hba.conf change, so an old cached template is never reused.
const pgTemplateFormat = "pg-v1"

// PostgresSuperuser is the superuser initdb creates in a private server.
const PostgresSuperuser = "postgres"

// pgHBA is the private server's client authentication: the superuser is
// trusted on the loopback address and the socket (as MariaDB's root has no
// password), every other role must give its password.
const pgHBA = `# Written by outboxchaos (harness/localenv).
local all all                 trust
host  all ` + PostgresSuperuser + ` 127.0.0.1/32 trust
host  all all      127.0.0.1/32 scram-sha-256
`

// postgresTemplate returns a directory whose "data" subdirectory is a
// freshly initialised PostgreSQL data directory for the server bin,
// building it with initdb on first use.
func postgresTemplate(ctx context.Context, bin, initdb string, acct pgAccount) (string, error) {
	key, err := templateKey(pgTemplateFormat, bin)
	if err != nil {
		return "", err
	}
	return cachedTemplate("postgres-template-"+key, func(root, final string) error {
		return installTemplate(root, final, bin, func(scratch string) error {
			return initPostgresData(ctx, initdb, acct, filepath.Join(scratch, "data"))
		})
	})
}

// initPostgresData runs initdb as the account in a server directory of its
// own (under os.TempDir(), where the account can work and the sweep finds
// it if this process dies) and copies the result to data.
func initPostgresData(ctx context.Context, initdb string, acct pgAccount, data string) error {
	work, err := newServerDir("postgres-initdb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := acct.checkReach(work); err != nil {
		return err
	}
	if err := acct.chownTree(work); err != nil {
		return err
	}
	if err := runInitdb(ctx, initdb, acct, work); err != nil {
		return err
	}
	initialised := filepath.Join(work, "data")
	if err := os.WriteFile(filepath.Join(initialised, "pg_hba.conf"), []byte(pgHBA), 0o600); err != nil {
		return fmt.Errorf("write pg_hba.conf: %w", err)
	}
	if err := copyTree(initialised, data); err != nil {
		return fmt.Errorf("copy initialised data directory: %w", err)
	}
	return nil
}

// runInitdb initialises work/data: UTF-8 without a locale (fast and the
// same everywhere), superuser PostgresSuperuser. --no-sync skips initdb's
// own flush: the result is copied into the cache, and a crash of the
// machine may leave any cache file half written anyway.
func runInitdb(ctx context.Context, initdb string, acct pgAccount, work string) error {
	ctx, cancel := withDefaultTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, initdb, "-D", filepath.Join(work, "data"), "-U", PostgresSuperuser,
		"--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync")
	cmd.Dir = work
	cmd.SysProcAttr = serverSysProcAttr() // it dies with this process
	cmd.SysProcAttr.Credential = acct.cred
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("initialise PostgreSQL data directory with %s as user %s: %w\n%s",
			initdb, acct.name, err, lastLines(string(out), logTailLines))
	}
	return nil
}
