package schemaddl

import (
	"fmt"
	"regexp"
	"strings"
)

var createEnum = regexp.MustCompile(`(?is)^CREATE\s+TYPE\s+(?:` + sqlIdent + `\s*\.\s*)?(` + sqlIdent + `)\s+AS\s+ENUM\s*\(`)

// enumTypes reads PostgreSQL's CREATE TYPE name AS ENUM ('a', 'b')
// statements: the labels of each type, by lower-cased name.
func enumTypes(stmts []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, s := range stmts {
		m := createEnum.FindStringSubmatchIndex(s)
		if m == nil {
			continue
		}
		name := unquoteIdent(s[m[2]:m[3]])
		body, err := parenBody(s, m[1]-1)
		if err != nil {
			return nil, fmt.Errorf("CREATE TYPE %s: %w", name, err)
		}
		out[strings.ToLower(name)] = stringLiterals(body)
	}
	return out, nil
}

// resolveEnums gives each column of an enum type that type's labels.
func (t *Table) resolveEnums(enums map[string][]string) {
	for key, c := range t.Columns {
		if labels, ok := enums[c.Type]; ok && len(c.Values) == 0 {
			c.Values = labels
			t.Columns[key] = c
		}
	}
}
