package schemaddl

import (
	"fmt"
	"strings"
)

// tokens splits one table element into words, quoted strings and
// parenthesised groups (each kept whole, with its quotes or parentheses).
func tokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '\'' || c == '"' || c == '`':
			end, err := quoteEnd(s, i)
			if err != nil {
				return nil, err
			}
			out = append(out, s[i:end+1])
			i = end + 1
		case c == '(':
			body, err := parenBody(s, i)
			if err != nil {
				return nil, err
			}
			out = append(out, "("+body+")")
			i += len(body) + 2
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n'\"`()", rune(s[j])) {
				j++
			}
			if j == i { // a stray ')'
				return nil, fmt.Errorf("unbalanced parentheses")
			}
			out = append(out, s[i:j])
			i = j
		}
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

func unquoteIdent(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '`' || s[0] == '"') && s[len(s)-1] == s[0] {
		return strings.ReplaceAll(s[1:len(s)-1], s[:1]+s[:1], s[:1])
	}
	return s
}

// unquoteString reads a '...' or "..." literal: a doubled quote or a
// backslash escape stands for the character after it.
func unquoteString(s string) string {
	if len(s) < 2 {
		return s
	}
	q, body := s[0], s[1:len(s)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		switch {
		case body[i] == '\\' && i+1 < len(body):
			i++
		case body[i] == q && i+1 < len(body) && body[i+1] == q:
			i++
		}
		b.WriteByte(body[i])
	}
	return b.String()
}

// stringLiterals returns every '...' literal of s, unquoted, in order.
func stringLiterals(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		end, err := quoteEnd(s, i)
		if err != nil {
			return out
		}
		out = append(out, unquoteString(s[i:end+1]))
		i = end
	}
	return out
}
