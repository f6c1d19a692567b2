// Package contract holds what the harness and every dispatcher share, as
// contract.md fixes it: the reference schema (section 1) and the names of the
// crash points a dispatcher may expose to the harness (OUTBOX_FAILPOINTS).
//
// It is the contract's side of the line. The reference dispatcher uses it,
// and so does the harness; the harness never imports the reference it tests
// (harness/bench, which measures the reference, is the one exception).
package contract
