package observe

import "strings"

// ident quotes a table or column name from the mapping for MySQL.
func ident(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// quoteString is a SQL string literal, for the few places (trigger bodies)
// where a parameter cannot be used.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}
