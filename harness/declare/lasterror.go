package declare

import (
	"regexp"
	"strings"
)

// The conventions a prefix can be read as (the keys of the manifest's
// conventions section), or Neither.
const (
	Releases   = "releases"
	Recoveries = "recoveries"
	Neither    = ""
)

// The words that make a prefix a release (a claim given back before its
// lease ends) or a recovery (an expired claim returned to pending).
var (
	releaseWords  = []string{"released", "release", "releasing", "shutting down", "shutdown", "stopping", "graceful", "given back", "gave back", "handed back", "draining"}
	recoveryWords = []string{"recovered", "recovery", "recovering", "reclaimed", "lease expired", "expired lease", "lease lost", "lock expired", "expired lock", "stale", "orphaned", "taken over", "took over", "takeover"}
)

// ErrorPrefix is the start of a last_error text that its kind shares: up
// to the first word ending in ':' ("released: "), at most three words
// ("lease expired, owner "), and never a word with a digit (an attempt
// number, an instance id).
func ErrorPrefix(text string) string {
	var b strings.Builder
	for i, w := range strings.SplitAfter(text, " ") {
		if i == 3 || strings.ContainsAny(w, "0123456789") {
			break
		}
		b.WriteString(w)
		if strings.HasSuffix(strings.TrimSpace(w), ":") {
			break
		}
	}
	return b.String()
}

// ReadPrefix reads a prefix as a release or a recovery by its words alone:
// the convention (Releases, Recoveries, or Neither when it reads as both
// or neither) and the word that made it so.
func ReadPrefix(prefix string) (convention, word string) {
	rel, rec := wordIn(prefix, releaseWords), wordIn(prefix, recoveryWords)
	switch {
	case rel != "" && rec == "":
		return Releases, rel
	case rec != "" && rel == "":
		return Recoveries, rec
	}
	return Neither, ""
}

var (
	camelCase = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	nonWord   = regexp.MustCompile(`[^a-z0-9]+`)
)

// wordIn returns the first of words that text holds as whole words (case,
// camelCase and punctuation aside).
func wordIn(text string, words []string) string {
	spaced := camelCase.ReplaceAllString(text, "$1 $2")
	norm := " " + strings.Join(strings.Fields(nonWord.ReplaceAllString(strings.ToLower(spaced), " ")), " ") + " "
	for _, w := range words {
		if strings.Contains(norm, " "+w+" ") {
			return w
		}
	}
	return ""
}
