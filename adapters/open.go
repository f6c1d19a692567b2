package adapters

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Open resolves an --adapter argument: "reference" is the built-in reference
// dispatcher; a path ending in .yaml or .yml is a manifest (see package
// manifest).
func Open(name string) (supervisor.Adapter, error) {
	switch {
	case name == "" || name == "reference":
		return refadapter.New(), nil
	case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"):
		a, err := manifest.Load(name)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	return nil, fmt.Errorf("adapter %q: not known; use \"reference\" or a manifest file (.yaml)", name)
}
