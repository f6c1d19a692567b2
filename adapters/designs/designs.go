// Package designs is the catalog of the benchmark's comparison designs:
// the seeds' correct but slow designs, which the benchmark (harness/bench,
// `outboxchaos bench`) runs beside the reference. They are not bugs, so they
// are not in the mutant catalog (adapters/mutants); each runs as a mode of
// the mutant base's binary (OUTBOXCHAOS_MODE, see package
// adapters/mutants/dispatcher, "Modes"), through mutants.ModeBinary.
package designs

import (
	"fmt"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/mutants"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Design is one comparison design: correct, just slow.
type Design struct {
	Name  string // the OUTBOXCHAOS_MODE value, and the name in the benchmark's table
	About string // what the design is, for the table
}

// All returns the comparison designs.
func All() []Design {
	return []Design{
		{names.ModeNestSingle, "the NestJS seed: one event per compare-and-set claim transaction, polling every 5 s when idle (ignores OUTBOX_POLL_INTERVAL and OUTBOX_BATCH_SIZE)"},
		{names.ModeGlobalLockBatch20, "the queue-constants seed: a Redis dispatch lock per 1 s tick, one batch of 20 per tick (ignores OUTBOX_POLL_INTERVAL and OUTBOX_BATCH_SIZE)"},
	}
}

// fixed are the tuning variables every design sets itself.
var fixed = map[string]bool{"OUTBOX_POLL_INTERVAL": true, "OUTBOX_BATCH_SIZE": true}

// Adapter returns the adapter of the named design. It does not declare
// OUTBOX_POLL_INTERVAL and OUTBOX_BATCH_SIZE: the design fixes them.
func Adapter(name string) (supervisor.Adapter, error) {
	var names []string
	for _, d := range All() {
		if d.Name == name {
			var tuning []string
			for _, v := range supervisor.TuningVariables() {
				if !fixed[v] {
					tuning = append(tuning, v)
				}
			}
			return mutants.ModeBinary(name, name, tuning)
		}
		names = append(names, d.Name)
	}
	return nil, fmt.Errorf("unknown design %q: use one of %s", name, strings.Join(names, ", "))
}
