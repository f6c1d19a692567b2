// Package examples holds example dispatchers that plug into the harness
// through manifests (package adapters/manifest), and the tests that run them
// end to end. It has no code of its own.
//
//   - reference.yaml: the reference dispatcher (reference/cmd/dispatcher)
//     through a manifest: built with go build into the run's work directory,
//     the contract's variables passed through, every capability declared.
//     Baseline: every invariant passes, as with the built-in adapter.
//   - node-dispatcher/: a Node.js dispatcher in the style of seed 000's
//     NestJS OutboxDispatcher, in plain JavaScript, with the real bullmq
//     (5.81.5, pinned) and mysql2 npm packages. main.js reads the contract's
//     variables; src/store.js claims with FOR UPDATE SKIP LOCKED under a
//     lease and a fresh fencing token, and finalizes each batch in one
//     transaction fenced by that token (published + job created -> queued,
//     failed with the reason, or pending with available_at pushed out by a
//     doubling, jittered backoff, failed at max attempts); src/publisher.js
//     calls Queue.add(name, {jobId}, {jobId}) within the publish timeout;
//     src/dispatcher.js is the loop with lease recovery, and SIGTERM stops
//     claiming, finishes or releases the batch in hand and exits 0. It has no
//     crash points. Install its packages with `make node-deps` (npm ci
//     there); the tests skip with that advice when node_modules is missing.
//     Baseline and redis-outage: every invariant passes. Its by-id
//     statements name the outbox table with FORCE INDEX (PRIMARY): through
//     the status index they waited on producers' open transactions
//     (found by commit-order-gaps).
//   - roomservice/: seed 002's room-service worker with its own schema,
//     status words and configuration names, mapped by its manifest; fixed-
//     interval retry by design, so I6 fails once an event is retried three
//     times (package roomservice documents the verdicts).
//
// All three pass commit-order-gaps, lock-conflicts and mysql-restart
// (newscenarios_test.go) and clock-skew (clockskew_test.go); ordering is
// skipped for each, as none declares ordering: per-aggregate.
package examples
