package schemaddl

import (
	"fmt"
	"strings"
)

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
