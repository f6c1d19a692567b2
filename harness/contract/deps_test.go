package contract_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/outboxchaos/outboxchaos/"

// dispatcherCode is the code of dispatchers the harness tests: the harness
// starts them as programs and must never link them in.
var dispatcherCode = []string{module + "reference", module + "adapters/mutants/dispatcher", module + "adapters/examples/"}

// The harness must not link the dispatcher it tests: no package of harness/
// but bench (which profiles the reference in-process, by design) has any of
// the dispatchers' packages among its dependencies.
func TestHarnessLinksNoDispatcher(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: cannot list dependencies")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"harness/...").CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Greater(t, len(lines), 10, "go list named the harness's packages")
	for _, line := range lines {
		fields := strings.Fields(line)
		pkg := fields[0]
		if pkg == module+"harness/bench" {
			continue
		}
		for _, dep := range fields[1:] {
			for _, code := range dispatcherCode {
				require.False(t, dep == code || strings.HasPrefix(dep, code+"/") || strings.HasPrefix(dep, code) && strings.HasSuffix(code, "/"),
					"%s links %s: the harness starts dispatchers as programs and must not depend on their code", pkg, dep)
			}
		}
	}
}
