package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
)

// textRefused tells the server's refusal of a text value under strict mode
// from other errors: SQLSTATE 22001 ("Data too long", 1406) or 1366
// ("Incorrect string value").
func textRefused(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (string(me.SQLState[:]) == "22001" || me.Number == 1366)
}

// refit runs a finalize statement again, in the same transaction, after
// the server refused its last_error text (vals[0]): the text is made valid
// UTF-8 and cut on a character boundary to last_error's width, which is
// read from information_schema at the first refusal and kept. MariaDB rolls
// back only the refused statement, so the transaction goes on.
func (s *single) refit(ctx context.Context, tx *sql.Tx, q string, vals []any, refused error) (sql.Result, error) {
	n, err := s.lastErrorWidth(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("%w (and reading last_error's width: %v)", refused, err)
	}
	why, _ := vals[0].(string)
	s.out.Printf("last_error refused a text of %d characters (%v): writing %d", utf8.RuneCountInString(why), refused, n)
	vals[0] = fitText(why, n)
	return tx.ExecContext(ctx, q, vals...)
}

// lastErrorWidth is last_error's width in characters, read once.
func (s *single) lastErrorWidth(ctx context.Context, tx *sql.Tx) (int, error) {
	if n := s.width.Load(); n > 0 {
		return int(n), nil
	}
	var n int64
	err := tx.QueryRowContext(ctx, `SELECT CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_events' AND COLUMN_NAME = 'last_error'`).Scan(&n)
	if err != nil {
		return 0, err
	}
	s.width.Store(n)
	return int(n), nil
}

// fitText makes s valid UTF-8 of at most n characters.
func fitText(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	k := 0
	for i := range s {
		if k == n {
			return s[:i]
		}
		k++
	}
	return s
}
