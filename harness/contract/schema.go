package contract

import (
	_ "embed"
	"strings"
)

// SchemaSQL is the contract's reference schema (docs/contract.md §1).
//
//go:embed schema.sql
var SchemaSQL string

// SchemaStatements returns SchemaSQL split into single statements, for
// drivers that run one statement per call.
func SchemaStatements() []string {
	var out []string
	for _, s := range strings.Split(SchemaSQL, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
