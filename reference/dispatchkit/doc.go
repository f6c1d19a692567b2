// Package dispatchkit holds the parts that the module's own dispatchers
// share: the reference dispatcher (package reference) and the mutant base
// (package adapters/mutants/dispatcher). It is not a dispatcher and knows
// nothing of either one's flow, so the base does not depend on the
// reference's internals for them and neither keeps a copy that could drift.
//
// What it holds:
//
//   - statements on the contract's schema: InTx (one transaction, rolled back
//     on any error), InList and Args (IN-list placeholders and their
//     arguments), QueryRows (a query's rows, scanned one by one) and
//     LoadJobs (the ai_jobs rows of a batch, one read);
//   - FitError and LastErrorWidth, which fit a text into last_error as the
//     column is (valid UTF-8, cut on a character boundary to its width,
//     read from information_schema), and TruncateError, to the contract's
//     1024;
//   - NewToken, a fresh 128-bit fencing token for a claim's lock_token;
//   - Loop, the poll loop: polls paced by the interval, a doubling idle wait
//     after failed polls (IdleWait), and a work context that outlives the
//     stop by the shutdown timeout, so the batch in flight can finish;
//   - Owned, the connections a dispatcher opened itself and must close;
//   - Main, the thin command around a dispatcher: configuration from the
//     environment, a graceful stop on SIGTERM or SIGINT (a second signal
//     terminates at once), and the contract's exit codes.
//
// Each dispatcher keeps its own claim, finalize and recovery statements:
// those are where the mutants' bugs live and where the reference's design
// differs from the base's.
package dispatchkit
