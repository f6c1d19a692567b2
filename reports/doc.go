// Package reports turns a recorded run and its checkers' results into files a
// person and a CI system read: index.html, results.json and junit.xml in the
// run's folder (WriteRun), and, for one `make chaos` invocation, a summary
// index.html and a combined junit.xml (WriteSummary).
//
// It is the last step of the data's way: runner.Run returns the run's
// history and the checkers' results and renders nothing; cmd/outboxchaos
// and harness/chaostest write the report from them (WriteRunResults), and
// `outboxchaos report DIR` re-renders it from the stored history.
//
// # index.html
//
// One self-contained file: inline CSS and inline SVG, no script, no font,
// no image and no request of any kind (a Content-Security-Policy of
// default-src 'none' says so to the browser). From the top:
//
//   - the verdict, big, and one sentence naming what failed, was unknown, or
//     had nothing to check;
//   - when a required invariant is unknown for lack of a declaration, the
//     manifest lines that would settle it (Results.Declarations, from
//     check.Declarations), verbatim, with why; the summary's row for that
//     run names the section they belong to;
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
// # results.json
//
// Build turns the run and its checkers' results into a verdict.Results;
// WriteRun writes it as results.json. Its schema, field by field, is
// documented with the type, in package harness/verdict.
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
