// Package history is the recorded run: everything the harness saw happen, from
// MySQL and Redis themselves, from its own workload and consumer, and from its
// fault schedule. It is the only input of the checkers, so a run can be checked
// again later from its folder alone (Jepsen's idea: the history is the product).
//
// # Sources
//
//   - Transitions: triggers on the outbox and jobs tables append every row
//     change, stamped with the database clock (NOW(6)), to a table the harness
//     owns. Status words are already mapped to the canonical vocabulary
//     (pending, processing, published, failed; created, queued, running, ...).
//   - Redis: entries of each queue's BullMQ events stream (added, duplicated,
//     waiting, ...), new job keys from keyspace notifications, and a final scan
//     of every list, set and job hash.
//   - Workload: every event the producer committed, with its kind (valid or a
//     poison kind), and every job the consumer took.
//   - Faults and processes: every fault window and every instance start, signal
//     and exit, on the harness clock.
//   - Commands: the requests each instance sent to Redis through its fault
//     proxy link that name a job of the run, and those that failed, with
//     their outcome (answered, error reply, reply dropped, connection ended
//     first); Meta.Commands says the run recorded them. Records with Store
//     set are the statements that failed on an instance's MySQL link (an
//     error packet, the proxy's own too, a reply dropped, a connection
//     ended first); a history without them reads as before.
//   - Gaps: anything an observer could not see (a trimmed stream, a dropped
//     pub/sub connection); checkers answer unknown rather than guess over a gap.
//
// # Run folder layout
//
//	meta.json          Meta: scenario, seed, parameters, adapter, tuning, versions
//	events.jsonl       Event, one per line
//	transitions.jsonl  Transition
//	stream.jsonl       StreamEntry
//	keys.jsonl         KeyNote
//	takes.jsonl        Take
//	faults.jsonl       Fault
//	processes.jsonl    ProcessEvent
//	gaps.jsonl         Gap
//	commands.jsonl     Command
//	final.json         Final
//
// All times are UTC. Database times and harness times come from the same
// machine's clock; checkers that compare across the two allow a small slack.
package history
