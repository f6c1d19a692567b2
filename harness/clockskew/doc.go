// Package clockskew skews the wall clock of one dispatcher instance, for the
// clock-skew scenario: a dispatcher that computes lease ends or backoff in
// application time, while recovery compares them with the database clock,
// breaks when its host clock is off (MailFathom #1989).
//
// An adapter declares how its processes can be skewed
// (supervisor.Capabilities.Clock, capabilities.clock in a manifest):
//
//   - faketime: a dynamically linked process (Node.js, Python, the JVM)
//     reads the time through libc, so libfaketime from Debian's faketime
//     package, loaded with LD_PRELOAD, shifts it by FAKETIME ("-10s").
//     FAKETIME_DONT_FAKE_MONOTONIC=1 leaves the monotonic clock alone, as a
//     skewed host's would be: timers and timeouts keep their length.
//   - go-overlay: a Go program reads the wall clock from the vDSO without
//     libc, static or not, so LD_PRELOAD does nothing to it. What does work:
//     building it with `go build -overlay` over a copy of the standard
//     library's time.Now that adds the offset FAKETIME names (the same
//     variable, the same syntax) to the wall clock, read once at start. The
//     monotonic reading is left alone, as for faketime. Without FAKETIME the
//     overlaid binary behaves exactly as a plain build.
//   - none (or nothing declared): the harness cannot skew the dispatcher, and
//     the clock-skew scenario is skipped with that reason.
//
// Why not the other ways (TestMechanisms shows the static binary and the
// time namespace; what was tried, and where, is in docs/findings.md):
//
//   - LD_PRELOAD=libfaketime.so.1 leaves time.Now of a Go binary unchanged,
//     static (CGO_ENABLED=0) or linked externally with cgo: the Go runtime
//     calls the vDSO itself, never libc, for the time, even where a C call
//     of clock_gettime through libc is shifted.
//   - A time namespace (unshare --time) offsets CLOCK_MONOTONIC and
//     CLOCK_BOOTTIME only; CLOCK_REALTIME is not namespaced
//     (time_namespaces(7)), so date and time.Now do not move.
//   - Setting the system clock would skew every process on the machine, the
//     servers and the harness included: never done.
//
// Env gives the variables of one mechanism; the supervisor adds them to the
// skewed instance's environment only (supervisor.SetProcessEnv), and the
// nemesis records the skew as a fault window (kind "clock-skew", target the
// slot, params offset, mechanism and instance) in faults.jsonl: the
// checkers read the skew from there, never from the dispatcher.
package clockskew
