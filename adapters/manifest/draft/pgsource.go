package draft

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxchaos/outboxchaos/harness/redact"
)

// isPostgresDSN: a postgres:// or postgresql:// URL, or libpq's key=value
// form naming a dbname.
func isPostgresDSN(dsn string) bool {
	lower := strings.ToLower(strings.TrimSpace(dsn))
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") ||
		(strings.Contains(lower, "dbname=") && !strings.Contains(lower, "@tcp("))
}

// openPostgres connects with dsn through pgx: the session's transactions
// default to read only (default_transaction_read_only), the transaction
// is BEGIN READ ONLY, and every query goes through the extended protocol,
// which takes one statement per query whatever the DSN asks.
func openPostgres(ctx context.Context, dsn string) (*readOnlyDB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %v (fix: write it as a PostgreSQL URL: postgres://user:password@host:port/database)", redact.Error(err))
	}
	if cfg.Database == "" {
		return nil, errors.New("--dsn names no database (fix: end it with /DATABASE, the database that holds your outbox)")
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	r := &readOnlyDB{db: stdlib.OpenDB(*cfg), where: fmt.Sprintf("database %s on %s:%d", cfg.Database, cfg.Host, cfg.Port),
		store: storePostgres, allowed: postgresRead}
	return r, r.open(ctx)
}

// pgColumn is one column as the catalog describes it.
type pgColumn struct {
	name, quoted, typ, identity, generated, def string
	notNull                                     bool
}

// The catalog queries: the current schema's base tables, a table's
// columns (type, NOT NULL, identity, generated, default) and constraints
// (primary key, unique, check, foreign key), and the ENUM types.
const (
	pgTablesQuery = `SELECT table_name, quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`
	pgColumnsQuery = `SELECT a.attname, quote_ident(a.attname), format_type(a.atttypid, a.atttypmod), a.attnotnull,
		a.attidentity::text, a.attgenerated::text, COALESCE(pg_get_expr(d.adbin, d.adrelid), '')
		FROM pg_catalog.pg_attribute a
		JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE n.nspname = current_schema() AND c.relname = $1 AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY a.attnum`
	pgConstraintsQuery = `SELECT quote_ident(con.conname), pg_get_constraintdef(con.oid)
		FROM pg_catalog.pg_constraint con
		JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relname = $1 AND con.contype IN ('p', 'u', 'c', 'f')
		ORDER BY CASE con.contype WHEN 'p' THEN 0 WHEN 'u' THEN 1 WHEN 'c' THEN 2 ELSE 3 END, con.conname`
	pgEnumsQuery = `SELECT quote_ident(t.typname), e.enumlabel
		FROM pg_catalog.pg_type t
		JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid
		JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
		WHERE n.nspname = current_schema() ORDER BY t.typname, e.enumsortorder`
)

// pgStatements reconstructs, from the catalog, the CREATE TYPE ... AS
// ENUM statements of the current schema and a CREATE TABLE statement per
// base table: its columns, NOT NULL, defaults, identity and serial
// columns, and its primary key, unique, check and foreign key constraints
// (indexes are left out).
func (r *readOnlyDB) pgStatements(ctx context.Context) ([]string, error) {
	stmts, err := r.pgEnums(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the ENUM types: %w", err)
	}
	tables, err := r.pairs(ctx, pgTablesQuery)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	if len(tables) == 0 {
		return nil, fmt.Errorf("%s has no tables in its current schema (fix: point --dsn at the database that holds your outbox, with its schema first on the search_path)", r.where)
	}
	for _, t := range tables {
		st, err := r.pgCreateTable(ctx, t[0], t[1])
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t[0], err)
		}
		stmts = append(stmts, st)
	}
	return stmts, nil
}

// pairs runs q and returns its two text columns, row by row.
func (r *readOnlyDB) pairs(ctx context.Context, q string, args ...any) ([][2]string, error) {
	rows, err := r.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// pgEnums returns one CREATE TYPE ... AS ENUM statement per ENUM type.
func (r *readOnlyDB) pgEnums(ctx context.Context) ([]string, error) {
	rows, err := r.pairs(ctx, pgEnumsQuery)
	if err != nil {
		return nil, err
	}
	var order []string
	labels := map[string][]string{}
	for _, row := range rows {
		if _, seen := labels[row[0]]; !seen {
			order = append(order, row[0])
		}
		labels[row[0]] = append(labels[row[0]], sqlString(row[1]))
	}
	out := make([]string, 0, len(order))
	for _, typ := range order {
		out = append(out, fmt.Sprintf("CREATE TYPE %s AS ENUM (%s)", typ, strings.Join(labels[typ], ", ")))
	}
	return out, nil
}

// pgCreateTable reconstructs the CREATE TABLE statement of table (quoted:
// its name as an identifier).
func (r *readOnlyDB) pgCreateTable(ctx context.Context, table, quoted string) (string, error) {
	cols, err := r.pgColumns(ctx, table)
	if err != nil {
		return "", fmt.Errorf("read its columns: %w", err)
	}
	var lines []string
	for _, c := range cols {
		lines = append(lines, "  "+c.definition())
	}
	cons, err := r.pairs(ctx, pgConstraintsQuery, table)
	if err != nil {
		return "", fmt.Errorf("read its constraints: %w", err)
	}
	for _, c := range cons {
		lines = append(lines, "  CONSTRAINT "+c[0]+" "+c[1])
	}
	return "CREATE TABLE " + quoted + " (\n" + strings.Join(lines, ",\n") + "\n)", nil
}

func (r *readOnlyDB) pgColumns(ctx context.Context, table string) ([]pgColumn, error) {
	rows, err := r.query(ctx, pgColumnsQuery, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pgColumn
	for rows.Next() {
		var c pgColumn
		if err := rows.Scan(&c.name, &c.quoted, &c.typ, &c.notNull, &c.identity, &c.generated, &c.def); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 && rows.Err() == nil {
		return nil, errors.New("no columns")
	}
	return out, rows.Err()
}

var (
	nextval     = regexp.MustCompile(`(?i)^nextval\('.*'::regclass\)$`)
	serialTypes = map[string]string{"smallint": "smallserial", "integer": "serial", "bigint": "bigserial"}
)

// definition is the column as a CREATE TABLE writes it: an integer whose
// default is its sequence's nextval as SERIAL (BIGSERIAL, SMALLSERIAL),
// an identity as GENERATED ... AS IDENTITY, an array type as T ARRAY.
func (c pgColumn) definition() string {
	typ, def := c.typ, c.def
	if serial, ok := serialTypes[typ]; ok && nextval.MatchString(def) {
		typ, def = serial, ""
	}
	if strings.HasSuffix(typ, "[]") {
		typ = strings.TrimSuffix(typ, "[]") + " ARRAY"
	}
	out := c.quoted + " " + typ
	switch {
	case c.identity == "a":
		out += " GENERATED ALWAYS AS IDENTITY"
	case c.identity == "d":
		out += " GENERATED BY DEFAULT AS IDENTITY"
	case c.generated == "s":
		out += " GENERATED ALWAYS AS (" + def + ") STORED"
		def = ""
	}
	if c.notNull {
		out += " NOT NULL"
	}
	if def != "" {
		out += " DEFAULT " + def
	}
	return out
}

// sqlString writes s as a standard SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
