package main

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
)

// maxReason is the cap on a reason before last_error has refused one.
const maxReason = 1000

// withReason runs query with reason as its first argument, the reason cut to
// what last_error is known to take. When the server refuses the reason
// itself (strict mode: 1406 data too long, 1366 incorrect string value),
// the same statement runs again with the reason cut to half as many
// characters, until it is taken; the length taken is remembered as the
// column's width (d.reasonCap) for every later reason. MariaDB rolls back
// only the refused statement, so the transaction goes on.
func (d *dispatcher) withReason(ctx context.Context, tx *sql.Tx, query, reason string, args ...any) error {
	text := cut(reason, d.limit())
	for {
		_, err := tx.ExecContext(ctx, query, append([]any{text}, args...)...)
		var me *mysql.MySQLError
		if err == nil || !errors.As(err, &me) || (me.Number != 1406 && me.Number != 1366) || text == "" {
			if err == nil && text != cut(reason, maxReason) {
				d.learn(utf8.RuneCountInString(text))
			}
			return err
		}
		d.log.Printf("last_error refused a reason of %d characters (%v), trying half", utf8.RuneCountInString(text), err)
		text = cut(text, utf8.RuneCountInString(text)/2)
	}
}

// limit is the width learned from refusals, or maxReason before any.
func (d *dispatcher) limit() int {
	if n := d.reasonCap.Load(); n > 0 {
		return int(n)
	}
	return maxReason
}

// learn lowers the learned width to n characters (never raises it).
func (d *dispatcher) learn(n int) {
	for {
		old := d.reasonCap.Load()
		if old > 0 && old <= int64(n) {
			return
		}
		if n < 1 || d.reasonCap.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}

// cut makes s valid UTF-8 of at most n characters, cut on a character
// boundary.
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n {
			return s[:i]
		}
		k++
	}
	return s
}
