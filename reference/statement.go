package reference

import (
	"database/sql"
	"fmt"
	"strings"
)

// sqlNow is the statement's "now": the injected time when the dispatcher has
// a clock (river's idea), else the database clock. Every use takes one
// argument from Dispatcher.nowArg.
const sqlNow = "COALESCE(CAST(? AS DATETIME(6)), NOW(6))"

// caseByID returns "CASE id WHEN ? THEN ? ... END" and its arguments, giving
// each id its own value.
func caseByID[V any](ids []int64, value func(i int) V) (string, []any) {
	var b strings.Builder
	args := make([]any, 0, 2*len(ids))
	b.WriteString("CASE id")
	for i, id := range ids {
		b.WriteString(" WHEN ? THEN ?")
		args = append(args, id, value(i))
	}
	b.WriteString(" END")
	return b.String(), args
}

// rowsWritten is the number of rows a write (res, err of ExecContext)
// changed, or its error wrapped with what the write was.
func rowsWritten(what string, res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return n, nil
}
