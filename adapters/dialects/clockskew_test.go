package dialects_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/clockskew"
)

// requireNodeSkew skips unless Node.js, node-owner-round's packages and
// libfaketime are all here.
func requireNodeSkew(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found on PATH: install Node.js 18+ to run the Node.js dialect")
	}
	if _, err := os.Stat("node-owner-round/node_modules/bullmq/package.json"); err != nil {
		t.Skip("adapters/dialects/node-owner-round/node_modules is missing: run `make node-deps`")
	}
	if _, err := clockskew.Libfaketime(); err != nil {
		t.Skipf("%v: the Node.js clock-skew runs need it", err)
	}
}

// The faketime path end to end, on a dispatcher that reads the time through
// libc: node-owner-round keeps every invariant under clock-skew (its leases
// are NOW(6) + lease), and its planted app-clock-lease (locked_until from
// Date.now()) is caught by I5, the skew having reached only d2 through
// LD_PRELOAD and FAKETIME.
func TestNodeClockSkewThroughFaketime(t *testing.T) {
	if testing.Short() {
		t.Skip("two end-to-end runs: not in -short")
	}
	requireNodeSkew(t)
	e := openEnv(t)
	work := t.TempDir()
	o := run(t, e, load(t, filepath.Join("node-owner-round", "manifest.yaml")), work, "clock-skew", 400)
	requireAllHold(t, o)
	require.Equal(t, check.Pass, o.Verdict, o.Reason)

	o = run(t, e, load(t, clockPlants[0]), work, "clock-skew", 400)
	r := result(t, o, "I5")
	require.Equal(t, check.Fail, r.Verdict, r.Reason)
	// d2 may be restarted, still skewed, at a new phase (SkewClockFor):
	// the violation names the start that claimed, d2r1 or a later one.
	m := regexp.MustCompile(`^Event \d+ was claimed by (d2r\d+) at [\d:.]+ with a lease ending at [\d:.]+, \d+(\.\d+)?s before the claim on the database clock: the claim excluded nobody\. The harness had set (d2r\d+)'s clock -10s off \(faketime\)\.$`).
		FindStringSubmatch(r.Violations[0].Summary)
	require.NotNil(t, m, r.Violations[0].Summary)
	require.Equal(t, m[1], m[3], "the skewed start is the one that claimed")
	t.Logf("caught through libfaketime: %s", r.Violations[0].Summary)
}
