// Package reports turns a recorded run and its checkers' results into files a
// person and a CI system read: index.html, results.json and junit.xml in the
// run's folder (WriteRun), and, for one `make chaos` invocation, a summary
// index.html and a combined junit.xml (WriteSummary).
//
// # index.html
//
// One self-contained file: inline CSS and inline SVG, no script, no font,
// no image and no request of any kind (a Content-Security-Policy of
// default-src 'none' says so to the browser). From the top:
//
//   - the verdict, big, and one sentence naming what failed, was unknown, or
//     had nothing to check;
//   - the findings (check.Findings): one per cause, each with its headline,
//     the invariants it breaks (linked), its events, jobs and instances, the
//     contract rules its violations name, and links to those violations;
//   - the command that reproduces the run (Meta.Command);
//   - the invariants I1..I9 in four states, each with its reason: pass,
//     fail, unknown, and not exercised (grey, dashed: the run gave it
//     nothing to check, so it is no pass claim); the invariants the scenario
//     exists to exercise (Meta.Exercises) are marked "exercised"; waived ones
//     are marked with the scenario's reason; I8's row shows the takeover
//     distribution when measured ("takeover after lease: n=.., p50 ..,
//     p99 .., max ..");
//   - for each violation: its Summary sentence, the contract rule it rests
//     on (when it names one), then a swimlane drawing and
//     the checker's Steps as an ordered list. The swimlane has one lane per
//     source (the workload's commit; each dispatcher instance with its claims,
//     finalizes, expired leases and signals; the MySQL rows; Redis with its
//     adds, duplicate adds and removals; the consumer's takes) and one column
//     per thing that happened, in time order, labelled with the time since
//     the event's commit. Columns are ordinal rather than proportional so a
//     claim and an add a millisecond apart stay apart; fault windows that
//     matter to the event (its dependencies, its instances and their links)
//     are shaded between the columns their times fall between. A Redis add is
//     connected to the instance that held the claim at that moment; Redis
//     does not say who added a job, so that link is an inference and the
//     page says so;
//   - a timeline of the whole run: one lane per instance (alive, paused,
//     signals) and per other fault target, every fault window shaded, the
//     moment of heal marked. Fault labels never overprint: they are laid out
//     on rows above the lanes (up to four; the lanes move down), and faults
//     too close for their full labels ("crash-point d2") are labelled with
//     their number ("F3", as in the fault table), or not at all when even
//     that has no room; then a list under the timeline gives every number
//     with its full label and time, and a band's tooltip the whole fault;
//   - backlog (outbox rows pending + processing, replayed from the
//     transitions) and commit-to-published latency (event produced to its
//     first transition to published; median and worst per interval) as line
//     charts over the run, with the same fault shading and labels (three
//     rows inside the plot);
//   - the run's environment, versions, tuning, parameters, counts, faults
//     and observer gaps.
//
// The page stays light whatever the run's size: charts fold the run into 400
// intervals, and drawings, lists and tables are capped (see the max*
// constants); what is left out is counted on the page and is always in
// results.json and the history files. A 10,000-event run renders to well
// under 2 MB.
//
// # Escaping and redaction
//
// Every string from a dispatcher, a row, Redis, a log or a scenario goes
// through html/template (never template.HTML), encoding/xml or
// encoding/json, so a last_error of <script>alert(1)</script> is text.
// Before anything is written, Redact removes passwords from every string
// that can hold a DSN or URL: the meta (command, parameters, versions,
// environment, waivers), rows' last errors, process details, fault
// parameters, gaps, and the checkers' summaries, reasons and steps. The
// history files themselves (meta.json and the *.jsonl) are written by the
// history package, not here.
//
// # results.json schema, version 2
//
// One JSON object; field names are stable within a schema version; a reader
// refuses another version (ReadResults) and says how to get this one: every
// run folder keeps its history, and `outboxchaos report DIR` re-checks it and
// rewrites results.json at the current version. Version 2 added the
// not-exercised verdict, verdict_reason, findings, run.exercises,
// violations' rule and I8's takeover.
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
//	invariants       []check.Result, I1..I9 in order, redacted:
//	  id, name, verdict ("pass" | "fail" | "unknown" | "not-exercised": the
//	  run gave it nothing to check; fails nothing, claims nothing), reason
//	  (one line: why unknown or not exercised, or a summary), waived (the
//	  scenario's reason, when it does not require this one), takeover (I8
//	  only, when measured: {count, p50_s, p99_s, max_s}, seconds from a dead
//	  owner's lease end to the write that ended its claim),
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
//	gaps             []history.Gap {source, at, detail}, redacted
//
// # junit.xml
//
// <testsuites> holds one <testsuite> per scenario run (named after the
// scenario; with the seed when one summary holds the scenario twice), with
// the seed, adapter, environment, verdict, verdict_reason and command as
// properties, and one <testcase name="I1 no duplicate job"
// classname="outboxchaos.<scenario>"> per invariant (findings do not change
// this): a pass is empty; a fail holds <failure message="first violation's
// summary" type="I1"> with every violation and its steps as text; an
// unknown holds <skipped message="unknown: reason">; a not-exercised one
// holds <skipped message="not exercised: reason">; a waived one holds
// <skipped message="waived: reason (verdict v)">.
//
// # The summary page
//
// For one `outboxchaos chaos`: the worst verdict, the count of runs that
// passed, failed and were unknown, and of invariant results not exercised;
// one row per run with a cell per invariant (PASS, FAIL, UNKNOWN, N/E for
// not exercised, or waived; the reason on hover); under each run its
// findings' headlines, or why it is unknown.
package reports
