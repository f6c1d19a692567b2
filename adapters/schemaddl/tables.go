package schemaddl

import (
	"fmt"
	"regexp"
	"strings"
)

// Table is what the parser learns about one CREATE TABLE statement.
type Table struct {
	Name       string
	Columns    map[string]Column // by lower-cased name
	Order      []string          // column names in the statement's order
	PrimaryKey []string          // column names, from a column or a table constraint
	Checks     []string          // the table's CHECK expressions (columns' own are on the column)
	References []string          // tables its FOREIGN KEYs reference
	Statement  string            // the CREATE TABLE statement as given
}

// Column is one column definition of a CREATE TABLE statement.
type Column struct {
	Name          string
	Type          string   // lower-cased base type: "bigint", "datetime", "varchar"
	TypeArgs      string   // what follows the type in parentheses: "16", "6", "'a','b'"
	Values        []string // an ENUM's or SET's values
	AutoIncrement bool
	// Default is a string DEFAULT unquoted, or another default as written
	// ("current_timestamp(6)"); "" when there is none.
	Default       string
	DefaultString bool     // the default is a string literal
	NotNull       bool     // declared NOT NULL
	Checks        []string // the column's own CHECK expressions
}

const sqlIdent = "(?:`[^`]+`|\"[^\"]+\"|[\\w$]+)"

var createTable = regexp.MustCompile(`(?is)^CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:` + sqlIdent + `\s*\.\s*)?(` + sqlIdent + `)\s*\(`)

// constraintWords start a table element that is not a column.
var constraintWords = map[string]bool{
	"key": true, "index": true, "primary": true, "unique": true, "constraint": true,
	"foreign": true, "fulltext": true, "spatial": true, "check": true, "period": true,
}

// ParseTables reads the CREATE TABLE statements among stmts, and the
// PostgreSQL CREATE TYPE ... AS ENUM statements their columns use; other
// statements are ignored. Table names lose any schema qualifier; the map is
// keyed by the lower-cased name.
func ParseTables(stmts []string) (map[string]Table, error) {
	out := map[string]Table{}
	enums, err := enumTypes(stmts)
	if err != nil {
		return nil, err
	}
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
		t := Table{Name: name, Columns: map[string]Column{}, Statement: s}
		for _, el := range splitTopLevel(body) {
			if err := t.addElement(el); err != nil {
				return nil, fmt.Errorf("CREATE TABLE %s: %w", name, err)
			}
		}
		if len(t.Columns) == 0 {
			return nil, fmt.Errorf("CREATE TABLE %s: no columns found", name)
		}
		t.resolveEnums(enums)
		out[strings.ToLower(name)] = t
	}
	return out, nil
}

// addElement reads one column definition or table constraint.
func (t *Table) addElement(el string) error {
	toks, err := tokens(el)
	if err != nil {
		return fmt.Errorf("%q: %w", el, err)
	}
	if len(toks) == 0 {
		return nil
	}
	if !strings.HasPrefix(toks[0], "`") && constraintWords[strings.ToLower(toks[0])] {
		t.addConstraint(toks)
		return nil
	}
	c, ok := parseColumn(toks)
	if !ok {
		return nil
	}
	key := strings.ToLower(c.Name)
	if _, dup := t.Columns[key]; !dup {
		t.Order = append(t.Order, c.Name)
	}
	t.Columns[key] = c
	for i := 0; i+1 < len(toks); i++ {
		switch {
		case isWord(toks[i], "primary") && isWord(toks[i+1], "key"):
			t.PrimaryKey = []string{c.Name}
		case isWord(toks[i], "references"):
			t.References = append(t.References, unquoteIdent(toks[i+1]))
		}
	}
	return nil
}

// addConstraint reads PRIMARY KEY, CHECK and FOREIGN KEY ... REFERENCES.
func (t *Table) addConstraint(toks []string) {
	for i := 0; i+1 < len(toks); i++ {
		switch {
		case isWord(toks[i], "primary") && isWord(toks[i+1], "key") && i+2 < len(toks) && isGroup(toks[i+2]):
			t.PrimaryKey = identList(toks[i+2])
		case isWord(toks[i], "check") && isGroup(toks[i+1]):
			t.Checks = append(t.Checks, groupText(toks[i+1]))
		case isWord(toks[i], "references"):
			t.References = append(t.References, unquoteIdent(toks[i+1]))
		}
	}
}

// typeWord is a type name: MySQL's are letters, PostgreSQL's may have
// digits and '_' (int8, a CREATE TYPE's name).
var typeWord = regexp.MustCompile(`(?i)^[a-z_][a-z0-9_]*$`)

// typeAliases are PostgreSQL's short names of types read by their base
// name (TIMESTAMPTZ is TIMESTAMP WITH TIME ZONE, whose base is TIMESTAMP).
var typeAliases = map[string]string{"timestamptz": "timestamp", "int8": "bigint", "int4": "integer", "int2": "smallint"}

// serialTypes are PostgreSQL's integer types with a sequence default: each
// reads as its integer type with AUTO_INCREMENT.
var serialTypes = map[string]string{"smallserial": "smallint", "serial": "integer", "bigserial": "bigint",
	"serial2": "smallint", "serial4": "integer", "serial8": "bigint"}

// parseColumn reads "name type[(args)] attributes..."; ok is false when the
// second token is not a type name.
func parseColumn(toks []string) (Column, bool) {
	if len(toks) < 2 || !typeWord.MatchString(toks[1]) {
		return Column{}, false
	}
	c := Column{Name: unquoteIdent(toks[0]), Type: strings.ToLower(toks[1])}
	rest := toks[2:]
	if (c.Type == "character" || c.Type == "char") && len(rest) > 0 && isWord(rest[0], "varying") {
		c.Type, rest = "varchar", rest[1:]
	}
	if base, ok := typeAliases[c.Type]; ok {
		c.Type = base
	}
	if base, ok := serialTypes[c.Type]; ok {
		c.Type, c.AutoIncrement = base, true
	}
	if len(rest) > 0 && isGroup(rest[0]) {
		c.TypeArgs = groupText(rest[0])
		if c.Type == "enum" || c.Type == "set" {
			c.Values = stringLiterals(c.TypeArgs)
		}
		rest = rest[1:]
	}
	for i := 0; i < len(rest); i++ {
		switch {
		case isWord(rest[i], "auto_increment"):
			c.AutoIncrement = true
		case isWord(rest[i], "not") && i+1 < len(rest) && isWord(rest[i+1], "null"):
			c.NotNull = true
			i++
		case isWord(rest[i], "generated"):
			var identity bool
			i, identity = skipGenerated(rest, i)
			c.AutoIncrement = c.AutoIncrement || identity
		case isWord(rest[i], "default") && i+1 < len(rest):
			c.Default, c.DefaultString = defaultValue(rest[i+1:])
			i++
		case isWord(rest[i], "check") && i+1 < len(rest) && isGroup(rest[i+1]):
			c.Checks = append(c.Checks, groupText(rest[i+1]))
			i++
		case isWord(rest[i], "comment") && i+1 < len(rest):
			i++ // the comment's text is never an attribute
		}
	}
	return c, true
}

// skipGenerated reads GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(...)]
// (PostgreSQL's AUTO_INCREMENT) or GENERATED ALWAYS AS (expr) [STORED]
// starting at i, so that its DEFAULT is not taken for a default; it
// returns the index of its last token and whether it is an identity.
func skipGenerated(toks []string, i int) (int, bool) {
	for j := i + 1; j < len(toks) && j <= i+4; j++ {
		switch {
		case isWord(toks[j], "identity"):
			if j+1 < len(toks) && isGroup(toks[j+1]) {
				j++ // the sequence's options
			}
			return j, true
		case isGroup(toks[j]):
			return j, false // a generated column's expression
		}
	}
	return i, false
}

// defaultValue reads the token after DEFAULT (and a call's arguments).
func defaultValue(toks []string) (string, bool) {
	v := toks[0]
	if v[0] == '\'' || v[0] == '"' {
		return unquoteString(v), true
	}
	if len(toks) > 1 && isGroup(toks[1]) {
		v += toks[1]
	}
	return v, false
}

func isWord(tok, word string) bool { return strings.EqualFold(tok, word) }

func isGroup(tok string) bool { return strings.HasPrefix(tok, "(") }

// groupText is a parenthesised token without its parentheses, trimmed.
func groupText(tok string) string { return strings.TrimSpace(tok[1 : len(tok)-1]) }

// identList reads "(`a`, b(10))" as [a b].
func identList(group string) []string {
	var out []string
	for _, part := range splitTopLevel(groupText(group)) {
		if toks, err := tokens(part); err == nil && len(toks) > 0 {
			out = append(out, unquoteIdent(toks[0]))
		}
	}
	return out
}
