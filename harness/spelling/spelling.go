// Package spelling suggests the name a person probably meant when a
// configuration key or variable is misspelt: the reference dispatcher's
// OUTBOX_* variables and the manifest's keys use the same rule.
package spelling

import "strings"

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest returns the candidate nearest to s, ignoring case, and its
// distance; the first in candidates order wins a tie. It returns "", -1 when
// there are no candidates.
func Nearest(s string, candidates []string) (string, int) {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := Distance(strings.ToLower(s), strings.ToLower(c)); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD
}

// Likely returns the candidate nearest to s when it is near enough to be a
// typo (fewer than len(s)/2+2 edits), else "".
func Likely(s string, candidates []string) string {
	best, d := Nearest(s, candidates)
	if d < 0 || d >= len(s)/2+2 {
		return ""
	}
	return best
}
