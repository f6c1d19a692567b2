package draft

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// commandLine is a command and its arguments, as --start or --build gives
// them.
type commandLine struct {
	command string
	args    []string
}

// splitCommand splits a command line into words at spaces outside '...'
// and "..." quotes (no escapes, no variables: the manifest's templates
// stay as written).
func splitCommand(flag, s string) (commandLine, error) {
	var words []string
	var cur strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return commandLine{}, fmt.Errorf("%s %q: unclosed %c quote (fix: close it, or leave the quotes out)", flag, s, quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return commandLine{}, nil
	}
	return commandLine{command: words[0], args: words[1:]}, nil
}

// clockGuess is the proposed capabilities.clock and why.
type clockGuess struct {
	value, reason string
}

// libcRuntimes read the wall clock through libc, so libfaketime skews them.
var libcRuntimes = regexp.MustCompile(`^(node|nodejs|npm|npx|yarn|pnpm|python[0-9.]*|java)$`)

// guessClock proposes how the harness may skew the dispatcher's clock: a
// build step that runs go build means go-overlay; a start command that is
// Node.js, Python or Java means faketime; anything else is none, to edit.
func guessClock(start, build commandLine) clockGuess {
	if build.command != "" && path.Base(build.command) == "go" && len(build.args) > 0 && build.args[0] == "build" {
		return clockGuess{"go-overlay", "GUESS: the build step runs go build, so the harness can compile the dispatcher with its time.Now overlay"}
	}
	base := path.Base(start.command)
	switch {
	case libcRuntimes.MatchString(base):
		return clockGuess{"faketime", fmt.Sprintf("GUESS: %s reads the time through libc, so libfaketime can skew it", base)}
	case base == "go" && len(start.args) > 0 && start.args[0] == "run":
		return clockGuess{"none", "EDIT: go run compiles outside the harness's build step: build it with go build under build: to use go-overlay"}
	}
	return clockGuess{"none", "EDIT: faketime for a program that reads the time through libc (Node.js, Python, the JVM), go-overlay for a Go program the build step compiles with go build"}
}
