// Package declare proposes manifest lines from what the harness can see,
// for what a run or a schema cannot settle by itself. Two readers share it:
// `outboxchaos init` (adapters/manifest/draft), which drafts a manifest from
// the tables and the start command, and a run's report (Suggestion in
// results.json, the page and the CLI), which names the declaration that
// would settle a verdict left unknown, or a scenario skipped, for lack of
// one.
//
// # What it reads
//
//   - capabilities.clock from the commands (GuessClock): a build step that
//     runs go build means go-overlay (the harness compiles its time.Now
//     overlay in); a start command that is Node.js, Python or Java means
//     faketime (libfaketime skews what libc returns); anything else is none,
//     left to the person. Always a guess.
//   - conventions from last_error texts (ErrorPrefix, ReadPrefix): the start
//     of a text that one kind of return shares (up to the first word that
//     ends in ':', at most three words, never a word with a digit), read as a
//     release or a recovery by its words alone ("released", "lease
//     expired"); a prefix that reads as both or neither is neither.
//
// # Suggestions
//
// A Suggestion is typed data (the section it adds, the invariants it would
// settle, the prefixes seen with their counts and events) and the YAML lines
// rendered from it once, so the page, results.json and the CLI show the same
// lines. The lines load with adapters/manifest as they are. A prefix is put
// live under releases or recoveries only when its words say so; one that
// reads as neither (an error's words, like "redis: ") is written commented
// out: declared as a release it would hide a retry without backoff, and left
// out, the declared conventions judge its returns as retries (I6). Returns
// that left last_error as it was suggest keeps_last_error only when that
// text has no prefix (empty); a kept error's text stays a comment, since
// keeps_last_error would also read a retry that writes the same error again
// as a release. Facts come from the run only; every reading of them is
// marked GUESS.
package declare
