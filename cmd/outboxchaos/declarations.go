package main

import (
	"fmt"
	"io"

	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// printDeclarations writes, at the end of run, chaos and report, the
// manifest lines that would settle what a scenario left unknown or skipped
// for lack of a declaration (each outcome's Declarations: its results'
// own, or a skipped scenario's), unindented so they paste as they are.
// names are the scenarios of outs, in order. Nothing when there are none.
func printDeclarations(w io.Writer, names []string, outs []runner.Outcome) {
	first := true
	for i, o := range outs {
		for _, d := range o.Declarations {
			if first {
				fmt.Fprintln(w, "\nWhat a declaration would settle: add these lines to the manifest. A line marked GUESS reads what")
				fmt.Fprintln(w, "the run wrote or what the commands suggest; declare it only if it is true of the dispatcher.")
				first = false
			}
			printDeclaration(w, names[i], d)
		}
	}
}

func printDeclaration(w io.Writer, scenario string, d declare.Suggestion) {
	fmt.Fprintf(w, "\n# %s: %s\n", scenario, d.Why)
	fmt.Fprint(w, d.YAML)
}

// skipHint points a skipped scenario that a declaration would let run at
// the lines printed at the end.
func skipHint(o runner.Outcome) string {
	if len(o.Declarations) == 0 {
		return ""
	}
	return " (the manifest lines that would let it run are printed at the end)"
}
