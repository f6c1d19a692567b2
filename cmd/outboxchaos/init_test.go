package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	roomServiceDir = "../../adapters/examples/roomservice"
	initMessages   = "../../adapters/manifest/draft/testdata/init-messages.sql"
)

// initInto runs init with args plus --out DIR/draft.yaml and --start (an
// executable, so that the draft can validate) and returns the draft's path
// and what init printed.
func initInto(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	out := filepath.Join(dir, "draft.yaml")
	f, err := parseInitFlags(append([]string{"--out", out, "--start", exe}, args...))
	require.NoError(t, err)
	var w bytes.Buffer
	err = runInit(context.Background(), f, &w)
	return out, w.String(), err
}

// init says what it read, chose and wrote and what needs the user, then
// validates the draft as doctor --adapter does and says what to run next.
func TestInitPrintsWhatItDidAndValidatesTheDraft(t *testing.T) {
	ddl := filepath.Join(roomServiceDir, "schema.sql")
	out, log, err := initInto(t, t.TempDir(), "--ddl", ddl)
	require.NoError(t, err, log)
	lines := strings.Split(strings.TrimSpace(log), "\n")
	require.Equal(t, []string{
		"init: read 2 tables from DDL file " + ddl,
		"init: outbox table room_outbox, jobs table room_tasks",
		"init: wrote " + out,
	}, lines[:3])
	require.Contains(t, log, "init: needs you: schema.outbox_status.published")
	require.Contains(t, log, "adapter room_outbox: ok", "the draft passes doctor --adapter's check")
	require.Equal(t, "next: review every GUESS comment in "+out+", then outboxchaos run --scenario baseline --adapter "+out, lines[len(lines)-1])
}

// A draft that does not validate is written, said so, and the error says
// what is wrong in it and what to run after the fix.
func TestInitSaysWhenTheDraftDoesNotValidateYet(t *testing.T) {
	dir := t.TempDir()
	ddl := filepath.Join(dir, "s.sql")
	src, err := os.ReadFile(initMessages)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ddl, []byte(strings.ReplaceAll(string(src), ", 'dead'", "")), 0o644))
	out, log, err := initInto(t, dir, "--ddl", ddl)
	require.Error(t, err)
	require.Contains(t, err.Error(), "does not validate yet")
	require.Contains(t, err.Error(), "outboxchaos doctor --adapter "+out)
	require.Contains(t, err.Error(), `no status word maps to the canonical "failed"`)
	require.Contains(t, log, "wrote "+out)
}

// What init read before it failed is printed; the error says what to fix.
func TestInitPrintsHowFarItGotBeforeAnError(t *testing.T) {
	_, log, err := initInto(t, t.TempDir(), "--ddl", initMessages, "--outbox-table", "nope")
	require.ErrorContains(t, err, `--outbox-table "nope": no such table`)
	require.Equal(t, "init: read 3 tables from DDL file "+initMessages+"\n", log)
}

func TestInitRefusesBadFlags(t *testing.T) {
	_, err := parseInitFlags([]string{"--ddl", "x.sql", "extra"})
	require.ErrorContains(t, err, `init: unexpected argument "extra"`)
	_, err = parseInitFlags([]string{"--nope"})
	require.Error(t, err)
	f, err := parseInitFlags(nil)
	require.NoError(t, err)
	require.Equal(t, "outboxchaos.yaml", f.Out, "the default draft")
	require.ErrorContains(t, runInit(context.Background(), f, &bytes.Buffer{}), "give --dsn (your dev database, read only) or --ddl")
}

func TestInitHelpPrintsItsFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	c := exec.Command(buildCLI(t), "init", "--help")
	c.Stdout, c.Stderr = &stdout, &stderr
	require.NoError(t, c.Run(), stderr.String())
	for _, w := range []string{"usage: outboxchaos init", "--dsn DSN", "--ddl FILE", "--out FILE", "--force", "--start COMMAND", "--build COMMAND", "--outbox-table TABLE", "--jobs-table TABLE", "--name NAME"} {
		require.Contains(t, stdout.String(), w)
	}
}
