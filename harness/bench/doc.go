// Package bench measures the reference dispatcher beside the seeds' designs
// and a raw floor, on private MariaDB and Redis servers of this machine, in
// one run, and reports the results as a markdown table with ratios (`make
// bench`, `outboxchaos bench`). It asserts nothing: the issue's goals are
// reported as met or not met with their numbers.
//
// # Rows
//
//   - floor: the least SQL and Redis work that moving one batch can take,
//     in-process: SELECT a batch of pending ids joined to their jobs' queues,
//     ONE pipelined reference/bullmq add of the batch, ONE batched UPDATE of
//     the events to published and ONE of the jobs to queued (autocommit), no
//     claim, lease, fence or validation. No correct dispatcher beats it.
//   - reference xN for each Config.Instances: the reference binary, N real
//     processes started through the supervisor with the contract's
//     environment, connected straight to the servers (no fault proxy).
//   - each Design: a comparison dispatcher (the mutants package's modes
//     nest-single and global-lock-batch20, wired by the CLI), same method,
//     fewer events, stopped at Config.SeedCap.
//
// Every case gets a fresh database with the reference schema (no history
// triggers) and a FLUSHDB of the private Redis.
//
// # Saturation
//
// Preload N valid events with workload.Producer.ProduceBatch, read the
// servers' counters and CPU, read the database clock (t0), start the
// instances, count published events every 100 ms until all N are published
// (or the cap passes), then read the instances' CPU and the counters again.
// events/s = published / (MAX(published_at) - t0), both on the database
// clock, so the polling granularity does not count and process start-up
// does.
//
// # Latency
//
// With the same reference instances still running, producers commit Rate
// events per second, each in its own transaction (workload.Producer.Produce,
// split over enough producers that each keeps up), for LatencyDuration. When
// all are published, latency per event is published_at - created_at (both
// DATETIME(6) on the database clock; created_at is the INSERT's time, a
// little before the COMMIT). The report gives p50, p99 (nearest rank) and
// the maximum.
//
// # Work per event
//
//   - MySQL statements: the server's global Questions counter (statements
//     clients sent: COM_QUERY and COM_STMT_EXECUTE) over the saturation
//     window, less the cost of reading it (calibrated once by two reads back
//     to back) and less every statement the harness itself sent in the
//     window (counted).
//   - Redis: INFO stats total_commands_processed over the window. The
//     dispatchers expose no round-trip count, so the report gives commands
//     (a script's own calls included), not round trips, and says so.
//   - CPU: utime + stime from /proc/<pid>/stat of every instance, read while
//     it still runs; peak memory: the largest VmHWM of one instance, from
//     /proc/<pid>/status before it is stopped. The servers' CPU over the
//     same window is reported too, and "cores busy" (all of it over the
//     elapsed time) says whether the machine itself was the bound.
//
// # Long memory check (optional)
//
// Config.LongEvents events (1,000,000 with --long) through two reference
// instances, fed in chunks while they run with the backlog kept under
// 50,000, sampling each instance's VmRSS every 2 s. Memory is called flat
// when the peak over the second half of the samples is at most 1.2 times the
// peak over the first half.
//
// # Profile (optional)
//
// With Config.ProfileDir, the reference library runs in-process, driven
// step by step (Claim, then Process) over a saturation preload, under a
// pprof CPU profile; the report gives the wall time of each half, the CPU
// share, and `go tool pprof -top`.
package bench
