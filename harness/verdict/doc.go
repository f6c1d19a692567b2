// Package verdict is the record of one judged run, the schema of a run
// folder's results.json: the verdict and why, the findings, every
// invariant's result, the landing, and the run's numbers (Results).
// Package reports builds it from a recorded run (reports.Build) and renders
// it; a reader of stored runs (a CI step, a dashboard) reads it back with
// Read, without the HTML package.
//
// # results.json schema, version 2
//
// One JSON object; field names are stable within a schema version; a reader
// refuses another version (Read) and says how to get this one: every
// run folder keeps its history, and `outboxchaos report DIR` re-checks it and
// rewrites results.json at the current version. Version 2 added the
// not-exercised verdict, verdict_reason, findings, run.exercises,
// violations' rule and I8's takeover; declarations came later, a new field
// that changes no other (an older file reads with none).
//
//	schema_version   int: 2
//	run              the run's meta.json (history.Meta), redacted:
//	  scenario, seed, params, adapter, environment, versions, command,
//	  prefix, queues, tuning {poll_interval, batch_size, lease, max_attempts,
//	  backoff_base, backoff_max, publish_timeout} (durations as Go text,
//	  "2s"), waived {invariant id: reason}, exercises [invariant ids the
//	  scenario exists to exercise], started, healed, ended (RFC 3339 UTC),
//	  quiesced (drain reached quiet), consumer (a consumer ran),
//	  remove_on_complete, landing [{fault, target, at_least, planned}]
//	verdict          "pass" | "fail" | "unknown": check.Decide: check.Fold
//	                 of the invariants and run.exercises, made unknown when
//	                 a landing requirement is not met (a fail stays a fail). Waived invariants do not
//	                 count; fail when one fails; unknown when one is unknown,
//	                 when one of run.exercises is "not-exercised", when none
//	                 passed, or when there is no result at all; else pass
//	verdict_reason   one line saying why the verdict is not a pass (which
//	                 invariants failed, could not be decided, or had nothing
//	                 to check though the scenario exists for them, or which
//	                 fault did not land); absent for a pass
//	findings         []check.Finding, always present (maybe empty), largest
//	                 first; violations of the failed, required invariants
//	                 that share an event or job id, folded by the invariants
//	                 and rules they break (see check.Findings):
//	  headline (one line: "17 events: <the lead violation's summary>;
//	  likewise 16 other events; <rule>."), invariants [ids], rules
//	  [contract rules named], events [ids], jobs [ids], instances,
//	  violations []{invariant, index}: indexes into that invariant's
//	  violations, the lead first
//	landing          []check.Landing, the scenario's landing requirements
//	                 judged on the history (always a list, maybe empty):
//	  fault, target, needed, planned, landed, met, reason ("2 of 8 planned
//	  kills fell inside an add->finalize window; 6 needed")
//	declarations     []declare.Suggestion, always present (maybe empty): the
//	                 manifest lines that would settle what the run left
//	                 unknown for lack of a declaration (check.Declarations):
//	  section ("conventions"), settles [invariant ids unknown for it], why
//	  (one line), prefixes []{prefix, convention ("releases" |
//	  "recoveries" | "": its words read as neither, left commented out),
//	  word, returns, kept (of them, returns that left last_error as an
//	  earlier write had it), events [ids, at most 20]} (the last_error
//	  prefixes the returns wrote in this run), kept and kept_events
//	  (returns that left last_error as it was, with no prefix to name),
//	  unnamed (returns that wrote a last_error no prefix names), yaml (the
//	  lines, which load with adapters/manifest as they are; GUESS marks
//	  what is read from the run's facts)
//	lost_adds        []check.LostAdd, always present (maybe empty): the jobs
//	                 Redis lost after running their adds, while the harness
//	                 had its append-only file off (redis-loses-adds): job,
//	                 queue, bull_id, events [ids], created, acknowledged
//	                 (the command log shows the add's answer reaching the
//	                 instance), recreated (zero when no later add created it
//	                 again), restarted (when Redis was back), published (an
//	                 event about it ended published). The environment's
//	                 doing: no invariant counts them against the dispatcher.
//	invariants       []check.Result, I1..I9 in order (then I10 when declared), redacted:
//	  id, name, verdict ("pass" | "fail" | "unknown" | "not-exercised": the
//	  run gave it nothing to check; fails nothing, claims nothing |
//	  "not-applicable": the outbox cannot express what it needs), reason
//	  (one line: why unknown or not exercised, or a summary), waived (the
//	  scenario's reason, when it does not require this one), takeover (I8
//	  only, when measured: {count, p50_s, p99_s, max_s}, seconds from a dead
//	  owner's lease end to the write that ended its claim), duplicates (I1
//	  only, at-least-once: messages delivered more than once),
//	  violations []{event_id, job_id, instances, summary (one sentence),
//	  rule (the docs/contract.md rule it rests on, with its section, as
//	  "docs/contract.md §2 step 6: ...", when any),
//	  steps []{at, source (mysql|redis|consumer|fault|process), text}}
//	counts
//	  events         outbox rows the run knows of (produced, or seen by the
//	                 triggers or the final scan)
//	  valid, poison  produced events by kind (already-queued counts as valid)
//	  published      rows that ended published
//	  failed         rows that ended failed
//	  valid_failed   valid events (already-queued included) that ended failed:
//	                 "valid events failed: N" on the page; 0 is the bar for a
//	                 dispatcher that rides out outages
//	  unfinished     rows that ended pending or processing (or unseen)
//	  jobs_created   job creations seen in Redis: "added" stream entries, or
//	                 new job keys when no stream entry was recorded
//	  takes          jobs the consumer took
//	  transitions    row transitions recorded by the triggers (both tables)
//	  faults         fault windows
//	  instances      dispatcher instances (each start of a process is one)
//	  gaps           observer gaps
//	latency          commit-to-published, over published events whose commit
//	                 the workload recorded; milliseconds, rounded to the µs
//	  samples, p50_ms, p99_ms (nearest rank), max_ms
//	duration         ended - started, as Go text ("6.1s")
//	faults           []history.Fault {id, kind, target, params, start, end},
//	                 redacted; end is zero while never healed
//	gaps             []history.Gap {source, at, detail, kept (what a stream
//	                 or list archive still held after Redis lost data)}, redacted
package verdict
