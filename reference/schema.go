package reference

import "github.com/outboxchaos/outboxchaos/harness/contract"

// SchemaSQL is the contract's reference schema (docs/contract.md §1); it
// lives on the contract's side, which the harness shares.
var SchemaSQL = contract.SchemaSQL

// SchemaStatements returns SchemaSQL split into single statements, for
// drivers that run one statement per call.
func SchemaStatements() []string { return contract.SchemaStatements() }
