package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// errHelp says that a command printed its help on request: the command
// exits 0 without doing anything else.
var errHelp = errors.New("help printed")

// newFlags makes a command's flag set; parse prints its help.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses a command's arguments. On -h or --help it prints the
// command's synopsis and each flag with its line of help to stdout and
// returns errHelp; any other mistake comes back naming the command.
func parse(fs *flag.FlagSet, synopsis string, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(os.Stdout, fs, synopsis)
		return errHelp
	}
	if err != nil {
		return fmt.Errorf("%s: %w (see `outboxchaos %s --help`)", fs.Name(), err, fs.Name())
	}
	return nil
}

// printHelp writes "usage: ..." and then one entry per flag.
func printHelp(w io.Writer, fs *flag.FlagSet, synopsis string) {
	fmt.Fprintf(w, "usage: outboxchaos %s\n", synopsis)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		fmt.Fprintln(w, "\nno flags")
		return
	}
	fmt.Fprintln(w, "\nflags:")
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if value != "" {
			head += " " + strings.ToUpper(value)
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s%s\n", head, usage, def)
	})
}

// splitList reads "a,b,c" into its non-empty, trimmed parts.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}
