package workload

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/model"
)

// sqlText renders the producer's and consumer's statements in the store's
// dialect: quoted names and placeholders (? for MySQL, $n for PostgreSQL).
type sqlText struct{ d model.Dialect }

// dialectOr is d, or MySQL's when d is the zero value.
func dialectOr(d model.Dialect) sqlText {
	if d.Quote == nil {
		d = model.MySQL
	}
	return sqlText{d}
}

// q quotes a table or column name from the mapping.
func (s sqlText) q(name string) string { return s.d.Quote(name) }

// ph returns n placeholders, numbered from first where the dialect numbers
// them.
func (s sqlText) ph(first, n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = "?"
		if s.d.Numbered {
			ps[i] = fmt.Sprintf("$%d", first+i)
		}
	}
	return strings.Join(ps, ", ")
}

// rows is rows parenthesised groups of width placeholders each, numbered
// on from first.
func (s sqlText) rows(first, width, rows int) string {
	groups := make([]string, rows)
	for i := range groups {
		groups[i] = "(" + s.ph(first+i*width, width) + ")"
	}
	return strings.Join(groups, ", ")
}
