// Package sleep is the harness's one wait that a context cuts short: the
// nemesis's spans, the workload's pacing and back-offs, and the observer's
// reconnect back-off all sleep through For.
package sleep
