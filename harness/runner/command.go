package runner

import (
	"fmt"
	"strings"
)

// ReplayCommand is the `outboxchaos run` command line that reproduces one
// run: the scenario, the adapter as it was given (reference, mutant:NAME or
// a manifest path), the seed and the run folder. Options.Command takes it.
func ReplayCommand(scenario, adapter string, seed int64, out string) string {
	return fmt.Sprintf("outboxchaos run --scenario %s --adapter %s --seed %d --out %s",
		shellWord(scenario), shellWord(adapter), seed, shellWord(out))
}

// shellWord quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellWord(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:+=,@%-", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
