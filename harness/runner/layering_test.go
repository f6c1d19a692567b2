package runner_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/outboxchaos/outboxchaos/"

// Packages follow the data: a scenario is defined against the nemesis and
// run by the runner, which returns the history and the results; the report
// is rendered later, by the callers. So neither the runner, the nemesis,
// the results schema nor the scenario catalog depends on the renderer.
func TestRunningAScenarioLinksNoRendering(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: cannot list dependencies")
	}
	pkgs := []string{module + "harness/runner", module + "harness/nemesis", module + "harness/verdict", module + "scenarios"}
	out, err := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}, pkgs...)...).CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(pkgs), "go list named each package once")
	for _, line := range lines {
		fields := strings.Fields(line)
		require.Greater(t, len(fields), 5, "go list gave %s's dependencies", fields[0])
		for _, dep := range fields[1:] {
			require.False(t, dep == module+"reports" || strings.HasPrefix(dep, module+"reports/"),
				"%s depends on %s: rendering belongs to the callers (cmd/outboxchaos, harness/chaostest)", fields[0], dep)
		}
	}
}
