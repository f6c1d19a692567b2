package adapters

import (
	"fmt"

	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Open resolves an --adapter argument: "reference" is the built-in reference
// dispatcher.
func Open(name string) (supervisor.Adapter, error) {
	switch name {
	case "", "reference":
		return refadapter.New(), nil
	}
	return nil, fmt.Errorf("adapter %q: not known; use \"reference\"", name)
}
