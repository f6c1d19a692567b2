package manifest

import (
	"fmt"
	"regexp"
	"strings"
)

// Table is what the DDL parser learns about one CREATE TABLE statement.
type Table struct {
	Name    string
	Columns map[string]Column // by lower-cased name
}

// Column is one column definition of a CREATE TABLE statement.
type Column struct {
	Name          string
	Type          string // lower-cased base type: "bigint", "datetime", "varchar"
	AutoIncrement bool
}

// SplitStatements splits SQL text into statements at semicolons outside
// quotes and comments, dropping comments and empty statements. It handles
// '...', "...", `...` (with doubled-quote and backslash escapes), -- and #
// line comments and /* */ block comments; it does not handle DELIMITER.
func SplitStatements(sql string) ([]string, error) {
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			end, err := quoteEnd(sql, i)
			if err != nil {
				return nil, err
			}
			cur.WriteString(sql[i : end+1])
			i = end
		case isLineComment(sql, i):
			nl := strings.IndexByte(sql[i:], '\n')
			if nl < 0 {
				i = len(sql)
			} else {
				i += nl
				cur.WriteByte('\n')
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unclosed /* comment at byte %d", i)
			}
			i += end + 3
			cur.WriteByte(' ')
		case c == ';':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

// isLineComment reports whether a # or -- comment starts at i (MySQL wants
// whitespace after --).
func isLineComment(s string, i int) bool {
	if s[i] == '#' {
		return true
	}
	if !strings.HasPrefix(s[i:], "--") {
		return false
	}
	return i+2 == len(s) || strings.ContainsRune(" \t\r\n", rune(s[i+2]))
}

// quoteEnd returns the index of the quote closing the one at start.
func quoteEnd(s string, start int) (int, error) {
	q := s[start]
	for i := start + 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q != '`':
			i++
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
		case s[i] == q:
			return i, nil
		}
	}
	return 0, fmt.Errorf("unclosed %c quote at byte %d", q, start)
}

const sqlIdent = "(?:`[^`]+`|[\\w$]+)"

var createTable = regexp.MustCompile(`(?is)^CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:` + sqlIdent + `\s*\.\s*)?(` + sqlIdent + `)\s*\(`)

// constraintWords start a table element that is not a column.
var constraintWords = map[string]bool{
	"key": true, "index": true, "primary": true, "unique": true, "constraint": true,
	"foreign": true, "fulltext": true, "spatial": true, "check": true, "period": true,
}

// ParseTables reads the CREATE TABLE statements among stmts; other
// statements are ignored. Table names lose any schema qualifier.
func ParseTables(stmts []string) (map[string]Table, error) {
	out := map[string]Table{}
	for _, s := range stmts {
		m := createTable.FindStringSubmatchIndex(s)
		if m == nil {
			continue
		}
		name := unquoteIdent(s[m[2]:m[3]])
		body, err := parenBody(s, m[1]-1)
		if err != nil {
			return nil, fmt.Errorf("CREATE TABLE %s: %w", name, err)
		}
		t := Table{Name: name, Columns: map[string]Column{}}
		for _, el := range splitTopLevel(body) {
			if c, ok := parseColumn(el); ok {
				t.Columns[strings.ToLower(c.Name)] = c
			}
		}
		if len(t.Columns) == 0 {
			return nil, fmt.Errorf("CREATE TABLE %s: no columns found", name)
		}
		out[strings.ToLower(name)] = t
	}
	return out, nil
}

// parenBody returns the text inside the parenthesis opening at open.
func parenBody(s string, open int) (string, error) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\'', '"', '`':
			end, err := quoteEnd(s, i)
			if err != nil {
				return "", err
			}
			i = end
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s[open+1 : i], nil
			}
		}
	}
	return "", fmt.Errorf("unbalanced parentheses")
}

// splitTopLevel splits a table body at commas outside parentheses and quotes.
func splitTopLevel(body string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\'', '"', '`':
			if end, err := quoteEnd(body, i); err == nil {
				i = end
			}
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(body[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(body[start:]))
}

var columnDef = regexp.MustCompile("(?is)^(`[^`]+`|\"[^\"]+\"|[\\w$]+)\\s+([a-z]+)")

var autoIncrement = regexp.MustCompile(`(?i)\bAUTO_INCREMENT\b`)

// parseColumn reads a column definition; ok is false for keys and
// constraints.
func parseColumn(el string) (Column, bool) {
	m := columnDef.FindStringSubmatch(el)
	if m == nil || (!strings.HasPrefix(m[1], "`") && constraintWords[strings.ToLower(m[1])]) {
		return Column{}, false
	}
	return Column{
		Name:          unquoteIdent(m[1]),
		Type:          strings.ToLower(m[2]),
		AutoIncrement: autoIncrement.MatchString(el),
	}, true
}

func unquoteIdent(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '`' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
