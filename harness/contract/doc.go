// Package contract holds what the harness and every dispatcher share, as
// docs/contract.md fixes it: the reference schema (docs/contract.md §1) and
// the names of the crash points a dispatcher may expose to the harness
// (OUTBOX_FAILPOINTS, docs/contract.md §4). doc_test.go keeps that page and
// schema.sql equal and every citation of the page resolvable; repo_test.go
// holds the other repository-wide checks.
//
// It is the contract's side of the line. The reference dispatcher uses it,
// and so does the harness; the harness never imports the reference it tests
// (harness/bench, which measures the reference, is the one exception).
package contract
