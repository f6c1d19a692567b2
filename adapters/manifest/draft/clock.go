package draft

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/declare"
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

// words is the command line as its words, command first (none when empty).
func (c commandLine) words() []string {
	if c.command == "" {
		return nil
	}
	return append([]string{c.command}, c.args...)
}

// guessClock proposes how the harness may skew the dispatcher's clock
// (declare.GuessClock, which a run's report shares for a skipped
// clock-skew).
func guessClock(start, build commandLine) clockGuess {
	c := declare.GuessClock(start.words(), build.words())
	return clockGuess{c.Value, c.Reason}
}
