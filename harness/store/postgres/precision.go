package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// timeColumn reads table's column's type (a domain's base type, as
// format_type writes it with no modifier) and its precision (-1: none
// given, which is microseconds).
func timeColumn(ctx context.Context, db querier, table, column string) (string, int, error) {
	var typ string
	var mod int
	err := db.QueryRowContext(ctx, `SELECT pg_catalog.format_type(CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END, NULL),
		CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
		WHERE a.attrelid = to_regclass($1) AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
		ident(table), column).Scan(&typ, &mod)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, fmt.Errorf("column %s.%s is not in the search_path's tables: check the manifest's schema mapping", table, column)
	}
	if err != nil {
		return "", 0, fmt.Errorf("read column %s.%s: %w", table, column, err)
	}
	if typ != "timestamp with time zone" && typ != "timestamp without time zone" {
		return "", 0, fmt.Errorf("column %s.%s is %s, not a timestamp: map a time column", table, column, typ)
	}
	return typ, mod, nil
}

// TimePrecision is how many fractional digits of a second PostgreSQL
// keeps in table's timestamp column: its declared precision, else 6.
func TimePrecision(ctx context.Context, db *sql.DB, table, column string) (int, error) {
	_, mod, err := timeColumn(ctx, db, table, column)
	if err != nil {
		return 0, err
	}
	if mod < 0 {
		return 6, nil
	}
	return mod, nil
}

// WholeSeconds is the ALTER that makes table's timestamp column keep
// whole seconds (PostgreSQL rounds a value written with more); the
// column's default and nullability stay. A domain column becomes its base
// type.
func WholeSeconds(ctx context.Context, db *sql.DB, table, column string) (string, error) {
	typ, _, err := timeColumn(ctx, db, table, column)
	if err != nil {
		return "", err
	}
	zone := "without time zone"
	if typ == "timestamp with time zone" {
		zone = "with time zone"
	}
	return fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s TYPE timestamp(0) %s", ident(table), ident(column), zone), nil
}
