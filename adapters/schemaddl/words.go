package schemaddl

import (
	"regexp"
	"strings"
)

// Vocabulary is the set of words a column's definition allows.
type Vocabulary struct {
	Words []string // in the order the DDL names them, without repeats
	From  string   // where they come from: "ENUM", "CHECK (...)"; "" when none
}

// Words returns the words the DDL allows in column: an ENUM's or SET's
// values, else the string literals a CHECK of the column or the table
// compares the column with (column IN ('a', 'b'), column = 'a'). A column
// with neither has an open vocabulary (Words is empty).
func (t Table) Words(column string) Vocabulary {
	c, ok := t.Columns[strings.ToLower(column)]
	if !ok {
		return Vocabulary{}
	}
	switch {
	case len(c.Values) > 0 && (c.Type == "enum" || c.Type == "set"):
		return Vocabulary{Words: unique(c.Values), From: strings.ToUpper(c.Type) + "(" + c.TypeArgs + ")"}
	case len(c.Values) > 0:
		return Vocabulary{Words: unique(c.Values), From: "the ENUM type " + c.Type}
	}
	for _, expr := range append(append([]string(nil), c.Checks...), t.Checks...) {
		if w := checkWords(expr, c.Name); len(w) > 0 {
			return Vocabulary{Words: unique(w), From: "CHECK (" + expr + ")"}
		}
	}
	return Vocabulary{}
}

// checkWords finds "column IN (...)", "column = '...'" and PostgreSQL's
// spelling of an IN list, "(column)::text = ANY (ARRAY['a'::text, ...])",
// in a CHECK expression and returns their string literals, or the integers
// of a list that has no string (integer status codes).
func checkWords(expr, column string) []string {
	id := "(?:`" + regexp.QuoteMeta(column) + "`|\"" + regexp.QuoteMeta(column) + "\"|\\b" + regexp.QuoteMeta(column) + "\\b)"
	in := regexp.MustCompile(`(?i)` + id + `\s+IN\s*\(([^()]*)\)`)
	anyArray := regexp.MustCompile(`(?i)` + id + `\)?(?:::[a-z][a-z ]*?)?\s*=\s*ANY\s*\(\s*\(?\s*ARRAY\s*\[([^\]]*)\]`)
	eq := regexp.MustCompile(`(?i)` + id + `\s*=\s*('(?:[^'\\]|\\.|'')*')`)
	var out []string
	for _, re := range []*regexp.Regexp{in, anyArray} {
		for _, m := range re.FindAllStringSubmatch(expr, -1) {
			out = append(out, listWords(m[1])...)
		}
	}
	for _, m := range eq.FindAllStringSubmatch(expr, -1) {
		out = append(out, unquoteString(m[1]))
	}
	return out
}

func unique(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range list {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

var integerLiteral = regexp.MustCompile(`(?:^|[\s,(])(-?\d+)\b`)

// listWords reads the items of an IN list or an ARRAY: its string
// literals, else its integers.
func listWords(list string) []string {
	if words := stringLiterals(list); len(words) > 0 {
		return words
	}
	var out []string
	for _, m := range integerLiteral.FindAllStringSubmatch(list, -1) {
		out = append(out, m[1])
	}
	return out
}
