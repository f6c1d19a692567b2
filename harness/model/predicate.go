package model

import (
	"fmt"
	"strings"
	"unicode"
)

// Dialect is what predicate rewriting needs to know of a store's SQL.
type Dialect struct {
	// Quote quotes an identifier (`x` for MySQL, "x" for PostgreSQL).
	Quote func(string) string
	// DoubleQuotedIdent: "x" is an identifier, not a string (PostgreSQL).
	DoubleQuotedIdent bool
	// Numbered: placeholders are $1, $2, ... (PostgreSQL), not ?.
	Numbered bool
	// JSONText is the SQL for the text of key in the JSON held by the
	// column reference col.
	JSONText func(col, key string) string
	// KeyText is the SQL for the text of a key column: lower-case hex for
	// a binary key.
	KeyText func(col string, binary bool) string
}

// MySQL is the MySQL and MariaDB dialect.
var MySQL = Dialect{
	Quote:    func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" },
	JSONText: func(col, key string) string { return "JSON_UNQUOTE(JSON_EXTRACT(" + col + ", '$." + key + "'))" },
	KeyText: func(col string, binary bool) string {
		if binary {
			return "LOWER(HEX(" + col + "))"
		}
		return "CAST(" + col + " AS CHAR)"
	},
}

// Postgres is the PostgreSQL dialect.
var Postgres = Dialect{
	Quote:             func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` },
	DoubleQuotedIdent: true, Numbered: true,
	JSONText: func(col, key string) string { return "(" + col + "::jsonb ->> '" + key + "')" },
	KeyText: func(col string, binary bool) string {
		if binary {
			return "encode(" + col + ", 'hex')"
		}
		return "(" + col + ")::text"
	},
}

// Rewrite returns pred with every reference to one of columns replaced by
// ref(column): a bare word equal to a column's name (any case) that is not
// qualified (a.b) or called (f(...)), or a quoted identifier equal to it.
// String literals and everything else are kept as written. It refuses a
// predicate with a comment or a ';', or with unbalanced quotes or
// parentheses: a trigger body is no place for either.
func Rewrite(pred string, columns []string, d Dialect, ref func(string) string) (string, error) {
	toks, err := lexSQL(pred, d)
	if err != nil {
		return "", err
	}
	known := map[string]string{}
	for _, c := range columns {
		known[strings.ToLower(c)] = c
	}
	var b strings.Builder
	depth := 0
	for i, t := range toks {
		switch {
		case t.kind == tokPunct && t.text == "(":
			depth++
		case t.kind == tokPunct && t.text == ")":
			depth--
			if depth < 0 {
				return "", fmt.Errorf("predicate %q: a ')' closes nothing", pred)
			}
		}
		if col, ok := columnRef(toks, i, known); ok {
			b.WriteString(ref(col))
			continue
		}
		b.WriteString(t.text)
	}
	if depth != 0 {
		return "", fmt.Errorf("predicate %q: %d '(' left open", pred, depth)
	}
	return b.String(), nil
}

// Columns lists the columns pred refers to, as Rewrite finds them.
func Columns(pred string, columns []string, d Dialect) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	_, err := Rewrite(pred, columns, d, func(c string) string {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
		return c
	})
	return out, err
}

// columnRef tells whether token i names one of the known columns.
func columnRef(toks []token, i int, known map[string]string) (string, bool) {
	t := toks[i]
	if t.kind != tokWord && t.kind != tokIdent {
		return "", false
	}
	col, ok := known[strings.ToLower(t.ident())]
	if !ok {
		return "", false
	}
	if prev := prevSignificant(toks, i); prev != nil && prev.kind == tokPunct && prev.text == "." {
		return "", false
	}
	if next := nextSignificant(toks, i); t.kind == tokWord && next != nil && next.kind == tokPunct && (next.text == "." || next.text == "(") {
		return "", false
	}
	return col, true
}

func prevSignificant(toks []token, i int) *token {
	for j := i - 1; j >= 0; j-- {
		if toks[j].kind != tokSpace {
			return &toks[j]
		}
	}
	return nil
}

func nextSignificant(toks []token, i int) *token {
	for j := i + 1; j < len(toks); j++ {
		if toks[j].kind != tokSpace {
			return &toks[j]
		}
	}
	return nil
}

type tokKind int

const (
	tokSpace tokKind = iota
	tokWord
	tokIdent  // a quoted identifier
	tokString // a string literal
	tokPunct
)

type token struct {
	kind tokKind
	text string
}

// ident is a word or a quoted identifier's name.
func (t token) ident() string {
	if t.kind == tokIdent {
		q := t.text[:1]
		return strings.ReplaceAll(t.text[1:len(t.text)-1], q+q, q)
	}
	return t.text
}

// lexSQL splits s into tokens whose texts, joined, are s.
func lexSQL(s string, d Dialect) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			j := i
			for j < len(s) && unicode.IsSpace(rune(s[j])) {
				j++
			}
			out = append(out, token{tokSpace, s[i:j]})
			i = j
		case c == '\'' || c == '"' || c == '`':
			j, err := quoted(s, i)
			if err != nil {
				return nil, err
			}
			kind := tokString
			if c == '`' || (c == '"' && d.DoubleQuotedIdent) {
				kind = tokIdent
			}
			out = append(out, token{kind, s[i:j]})
			i = j
		case c == '_' || c == '$' || unicode.IsLetter(c) || unicode.IsDigit(c):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			out = append(out, token{tokWord, s[i:j]})
			i = j
		case c == ';' || strings.HasPrefix(s[i:], "--") || strings.HasPrefix(s[i:], "/*") || c == '#':
			return nil, fmt.Errorf("predicate %q: no comments or ';' in a state predicate: write one SQL expression", s)
		default:
			out = append(out, token{tokPunct, s[i : i+1]})
			i++
		}
	}
	return out, nil
}

// quoted returns the end of the quoted text starting at i (a doubled quote
// is the quote itself; a backslash escapes in a string literal).
func quoted(s string, i int) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q && j+1 < len(s) && s[j+1] == q:
			j++
		case s[j] == q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("predicate %q: a %c quote is never closed", s, q)
}
