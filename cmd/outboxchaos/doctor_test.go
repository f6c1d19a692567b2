package main

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// doctor says which PostgreSQL a PostgreSQL store would get, hides the
// DSN's password, and fails with the reason on a DSN the harness cannot use.
func TestDoctorSaysWhichPostgreSQL(t *testing.T) {
	bin := buildCLI(t)
	doctor := func(dsn string) (string, string, error) {
		cmd := exec.Command(bin, "doctor")
		cmd.Env = append(os.Environ(), "OUTBOXCHAOS_ENV=", "OUTBOXCHAOS_MYSQL_DSN=", "OUTBOXCHAOS_REDIS_URL=", "OUTBOXCHAOS_POSTGRES_DSN="+dsn)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}

	out, stderr, err := doctor("postgres://app:Pg+Secret9@db.example:5433/outbox")
	require.NoError(t, err, stderr)
	require.Contains(t, out, "OUTBOXCHAOS_POSTGRES_DSN=(set)")
	require.Contains(t, out, "postgresql environment: external (opened only for an adapter whose store is PostgreSQL)")
	require.Contains(t, out, "postgresql reason: OUTBOXCHAOS_POSTGRES_DSN is set")
	require.Contains(t, out, "postgres:")
	require.Contains(t, out, "initdb:")
	require.NotContains(t, out+stderr, "Pg+Secret9")

	out, _, err = doctor("")
	require.NoError(t, err)
	require.Contains(t, out, "postgresql environment: local", "this machine has postgres and initdb")
	require.Contains(t, out, "postgres account:")

	out, stderr, err = doctor("postgres://app:Pg+Secret9@db.example:5433/outbox?sslmode=require")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 3, exit.ExitCode())
	require.Contains(t, out+stderr, "requires TLS")
	require.NotContains(t, out+stderr, "Pg+Secret9")
}
