// Package mutants is the catalog of broken dispatchers that proves the
// harness's checkers can fail: each mutant is the correct base dispatcher
// (package adapters/mutants/dispatcher) with EXACTLY ONE known bug, declared
// with the invariant that must catch it and the scenario that catches it.
// scenarios/mutants_test.go runs every mutant in its scenario and requires
// that invariant's verdict to be fail, while the reference and the base pass
// the same scenarios.
//
// Adapter(name) runs a mutant through the harness: it is the reference
// adapter (adapters/reference) building cmd/mutant once per work directory,
// with OUTBOXCHAOS_MUTANT=<name> in every instance's environment; it honours
// every contract tuning variable, has the reference's crash points and stops
// gracefully on SIGTERM. BaseAdapter runs the base with no bug, the control.
// Adapter("<name>:blackbox") (the CLI's --adapter mutant:<name>+blackbox) is
// the same mutant as a black box: it declares no crash points and is never
// given OUTBOX_FAILPOINTS, so the harness traps its windows from outside
// (window trap, SIGSTOP, proxy faults), as for another team's dispatcher;
// scenarios/mutants_test.go requires each such run to fail its invariant or
// come out unknown because a fault did not land, never to pass.
// The base is its own dispatcher, not a copy of the reference: it shares
// the plumbing both need through package reference/dispatchkit (and its
// tests share reference/dispatchtest), uses only the reference's public
// configuration, connections, producer and crash points, and writes its own
// claim, finalize and recovery (see package adapters/mutants/dispatcher).
//
// The benchmark's comparison designs (a seed's correct but slow design) are
// not mutants: their catalog is package adapters/designs, which runs them
// through ModeBinary as modes of the same binary.
//
// # Scenarios the catalog names beyond the scenario catalog
//
// Some bugs show only in a window a catalog scenario does not open reliably;
// scenarios/mutants_test.go defines these from catalog entries:
//
//   - crash-window-no-consumer: crash-window with two after-enqueue crashes
//     and no consumer. With a consumer, the job is moved past 'created'
//     before the crashed claim is recovered, so the re-add never happens and
//     add bugs stay hidden.
//   - crash-after-finalize: crash-window crashing at after-finalize-commit.
//   - baseline-no-consumer: baseline without a consumer, whose worker would
//     otherwise move a 'created' job on and hide a missing created -> queued.
//
// The pauses the fencing and recovery mutants need are the catalog's zombie
// scenario: d1 sleeps 2.5 leases at after-enqueue on its 2nd batch (its
// claim is recovered and finalized by another instance, then it wakes and
// finalizes), and d2 sleeps 1.75 leases at before-finalize-commit on its
// 2nd batch, holding the finalize's row locks past its lease, so a recovery
// reads the rows as expired and its write lands after the finalize commits.
package mutants
