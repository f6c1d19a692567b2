package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/model"
)

// A time column's precision: how many fractional digits of a second the
// server keeps in it (6 for microseconds, 0 for whole seconds). A value
// written with more digits is cut by MariaDB (unless its
// TIME_ROUND_FRACTIONAL mode is set) and rounded by MySQL and PostgreSQL,
// so a lease end or a backoff read back can differ from what the
// dispatcher computed by up to one step of the column.

// mysqlColumn is a time column as MySQL's catalog describes it.
type mysqlColumn struct {
	typ, nullable, extra string
	def                  sql.NullString
	precision            sql.NullInt64
}

func readMySQLColumn(ctx context.Context, db *sql.DB, table, column string) (mysqlColumn, error) {
	var c mysqlColumn
	err := db.QueryRowContext(ctx, `SELECT COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, EXTRA, DATETIME_PRECISION
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?`,
		table, column).Scan(&c.typ, &c.nullable, &c.def, &c.extra, &c.precision)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("column %s.%s is not in the current database: check the manifest's schema mapping", table, column)
	}
	if err != nil {
		return c, fmt.Errorf("read column %s.%s: %w", table, column, err)
	}
	if !c.precision.Valid {
		return c, fmt.Errorf("column %s.%s is %s, not a DATETIME or TIMESTAMP: map a time column", table, column, c.typ)
	}
	return c, nil
}

func (mysqlStore) TimePrecision(ctx context.Context, db *sql.DB, table, column string) (int, error) {
	c, err := readMySQLColumn(ctx, db, table, column)
	return int(c.precision.Int64), err
}

func (mysqlStore) WholeSeconds(ctx context.Context, db *sql.DB, table, column string) (string, error) {
	c, err := readMySQLColumn(ctx, db, table, column)
	if err != nil {
		return "", err
	}
	return wholeSecondsMySQL(table, column, c)
}

// fsp matches a fractional seconds precision, "(6)", in a type, a default
// or an ON UPDATE clause.
var fsp = regexp.MustCompile(`\(\d*\)`)

// currentTimestamp matches CURRENT_TIMESTAMP with or without a precision,
// as MariaDB and MySQL write a default or an ON UPDATE.
var currentTimestamp = regexp.MustCompile(`(?i)^current_timestamp(\(\d*\))?$`)

// wholeSecondsMySQL is the MODIFY that keeps column's type, nullability,
// default and ON UPDATE, at precision 0.
func wholeSecondsMySQL(table, column string, c mysqlColumn) (string, error) {
	if strings.Contains(strings.ToUpper(c.extra), "GENERATED") && !strings.Contains(strings.ToUpper(c.extra), "DEFAULT_GENERATED") {
		return "", fmt.Errorf("column %s.%s is generated (%s): the harness cannot change its precision", table, column, c.extra)
	}
	q := model.MySQL.Quote
	def := ""
	switch d := strings.TrimSpace(c.def.String); {
	case !c.def.Valid:
	case strings.EqualFold(d, "NULL"):
		def = " DEFAULT NULL"
	case currentTimestamp.MatchString(d):
		def = " DEFAULT CURRENT_TIMESTAMP"
	case strings.HasPrefix(d, "'"):
		def = " DEFAULT " + d // MariaDB quotes a literal default
	default:
		def = " DEFAULT '" + strings.ReplaceAll(d, "'", "''") + "'" // MySQL does not
	}
	null := " NULL"
	if c.nullable == "NO" {
		null = " NOT NULL"
	}
	onUpdate := ""
	if strings.Contains(strings.ToLower(c.extra), "on update current_timestamp") {
		onUpdate = " ON UPDATE CURRENT_TIMESTAMP"
	}
	typ := fsp.ReplaceAllString(c.typ, "")
	return fmt.Sprintf("ALTER TABLE %s MODIFY %s %s%s%s%s", q(table), q(column), typ, null, def, onUpdate), nil
}
