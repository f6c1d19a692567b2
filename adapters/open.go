package adapters

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/adapters/mutants"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Open resolves an --adapter argument: "reference" is the built-in reference
// dispatcher; "mutant:NAME" one of the broken dispatchers of package mutants
// a path ending in .yaml or .yml is a manifest (see package manifest).
// "reference+blackbox" and "mutant:NAME+blackbox" run the built-in ones with
// their crash points declared absent (BlackBox); a mutant then also drops
// the failpoints its own bug arms (mutants.BlackBoxSuffix).
func Open(name string) (supervisor.Adapter, error) {
	if base, ok := strings.CutSuffix(name, BlackBoxSuffix); ok {
		if strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml") {
			return nil, fmt.Errorf("adapter %q: a manifest declares its crash points itself (capabilities.crash_points: false); drop %q", name, BlackBoxSuffix)
		}
		if bug, ok := strings.CutPrefix(base, "mutant:"); ok {
			return mutants.Adapter(bug + mutants.BlackBoxSuffix)
		}
		a, err := Open(base)
		if err != nil {
			return nil, err
		}
		return BlackBox(a), nil
	}
	switch {
	case name == "" || name == "reference":
		return refadapter.New(), nil
	case strings.HasPrefix(name, "mutant:"):
		return mutants.Adapter(strings.TrimPrefix(name, "mutant:"))
	case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"):
		a, err := manifest.Load(name)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	return nil, fmt.Errorf("adapter %q: not known; use \"reference\", \"mutant:NAME\" or a manifest file (.yaml)", name)
}
