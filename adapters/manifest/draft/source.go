package draft

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
	"github.com/outboxchaos/outboxchaos/harness/redact"
)

// readDDLFile reads the CREATE TABLE statements of a SQL file.
func readDDLFile(path string) (map[string]schemaddl.Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ddl %s: %w (fix: give the path of the SQL file that creates your outbox and jobs tables)", path, err)
	}
	stmts, err := schemaddl.SplitStatements(string(data))
	if err != nil {
		return nil, fmt.Errorf("--ddl %s: %w (fix: correct the SQL; DELIMITER blocks are not understood, so leave triggers and procedures out)", path, err)
	}
	tables, err := schemaddl.ParseTables(stmts)
	if err != nil {
		return nil, fmt.Errorf("--ddl %s: %w (fix: correct that CREATE TABLE statement)", path, err)
	}
	if len(tables) == 0 {
		return nil, fmt.Errorf("--ddl %s: no CREATE TABLE statement found (fix: give the file that creates the outbox and jobs tables, e.g. the output of mysqldump --no-data)", path)
	}
	return tables, nil
}

// The stores a draft can read from and name (the manifest's store key).
const (
	storeMySQL    = "mysql"
	storePostgres = "postgres"
)

// readOnlyDB is one connection to the team's database that can only read:
// the session is read-only, every statement runs inside one READ ONLY
// transaction that is rolled back at the end, one statement per query, and
// query refuses any statement its store does not allow (SELECT and SHOW on
// MySQL, SELECT on PostgreSQL) before it is sent.
type readOnlyDB struct {
	db      *sql.DB
	conn    *sql.Conn
	tx      *sql.Tx
	where   string // "database NAME on HOST:PORT", without the password
	store   string // storeMySQL or storePostgres
	allowed *regexp.Regexp
	session string // the statement that makes the session read-only; "" when the connection does
}

// openReadOnly connects with dsn, a PostgreSQL URL (postgres://...) or
// key=value string (dbname=...), else go-sql-driver/mysql's form, and
// opens the read-only transaction.
func openReadOnly(ctx context.Context, dsn string) (*readOnlyDB, error) {
	if isPostgresDSN(dsn) {
		return openPostgres(ctx, dsn)
	}
	return openMySQL(ctx, dsn)
}

// openMySQL connects with dsn (go-sql-driver/mysql's form).
func openMySQL(ctx context.Context, dsn string) (*readOnlyDB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %v (fix: write it as go-sql-driver/mysql takes it: user:password@tcp(host:port)/database, or a PostgreSQL URL postgres://user:password@host:port/database)", redact.Error(err))
	}
	if cfg.DBName == "" {
		return nil, errors.New("--dsn names no database (fix: end it with /DATABASE, the database that holds your outbox and jobs tables)")
	}
	cfg.MultiStatements = false // one statement per query, always a SELECT or SHOW
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %v", redact.Error(err))
	}
	r := &readOnlyDB{db: sql.OpenDB(connector), where: fmt.Sprintf("database %s on %s", cfg.DBName, cfg.Addr),
		store: storeMySQL, allowed: mysqlRead, session: "SET SESSION TRANSACTION READ ONLY"}
	return r, r.open(ctx)
}

// open starts the read-only transaction on the one connection.
func (r *readOnlyDB) open(ctx context.Context) error {
	r.db.SetMaxOpenConns(1)
	if err := r.begin(ctx); err != nil {
		r.close()
		return fmt.Errorf("%s: %v (fix: check the host, port, user, password and database of --dsn; the user needs SELECT on the database)", r.where, redact.Error(err))
	}
	return nil
}

func (r *readOnlyDB) begin(ctx context.Context) error {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	r.conn = conn
	if r.session != "" {
		if _, err := conn.ExecContext(ctx, r.session); err != nil {
			return fmt.Errorf("make the session read-only: %w", err)
		}
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("start a read-only transaction: %w", err)
	}
	r.tx = tx
	return nil
}

func (r *readOnlyDB) close() {
	if r.tx != nil {
		_ = r.tx.Rollback()
	}
	if r.conn != nil {
		_ = r.conn.Close()
	}
	_ = r.db.Close()
}

// The statements query lets through, by store.
var (
	mysqlRead    = regexp.MustCompile(`(?is)^\s*(SELECT|SHOW)\s`)
	postgresRead = regexp.MustCompile(`(?is)^\s*SELECT\s`)
)

// query runs a statement its store allows (a SELECT; on MySQL a SHOW too)
// in the read-only transaction; anything else is refused without being
// sent.
func (r *readOnlyDB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if !r.allowed.MatchString(q) {
		return nil, fmt.Errorf("refused to send %q: init only reads", q)
	}
	return r.tx.QueryContext(ctx, q, args...)
}

// firstColumn runs q and returns its first column, NULLs left out.
func (r *readOnlyDB) firstColumn(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := r.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		if v.Valid {
			out = append(out, v.String)
		}
	}
	return out, rows.Err()
}

// createStatements returns the CREATE TABLE statement of every base
// table: SHOW CREATE TABLE's on MySQL, pgStatements' reconstruction (with
// the ENUM types' CREATE TYPE first) on PostgreSQL.
func (r *readOnlyDB) createStatements(ctx context.Context) ([]string, error) {
	if r.store == storePostgres {
		return r.pgStatements(ctx)
	}
	names, err := r.firstColumn(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME")
	if err != nil {
		return nil, fmt.Errorf("%s: list tables: %w", r.where, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s has no tables (fix: point --dsn at the database that holds your outbox and jobs tables)", r.where)
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		rows, err := r.query(ctx, "SHOW CREATE TABLE "+r.quote(n))
		if err != nil {
			return nil, fmt.Errorf("%s: SHOW CREATE TABLE %s: %w", r.where, n, err)
		}
		var name, stmt string
		if rows.Next() {
			err = rows.Scan(&name, &stmt)
		}
		rows.Close()
		if err != nil || stmt == "" {
			return nil, fmt.Errorf("%s: SHOW CREATE TABLE %s: no statement (%v)", r.where, n, err)
		}
		out = append(out, stmt)
	}
	return out, nil
}

// maxWords caps the distinct status words read from one column.
const maxWords = 100

// distinct returns the distinct values of table.column.
func (r *readOnlyDB) distinct(ctx context.Context, table, column string) ([]string, error) {
	q := fmt.Sprintf("SELECT DISTINCT %s FROM %s ORDER BY 1 LIMIT %d", r.quote(column), r.quote(table), maxWords)
	words, err := r.firstColumn(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: read the status words of %s.%s: %w", r.where, table, column, err)
	}
	return words, nil
}

// quote quotes an identifier for the store.
func (r *readOnlyDB) quote(s string) string {
	if r.store == storePostgres {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// placeholder is the store's i-th (from 1) query parameter.
func (r *readOnlyDB) placeholder(i int) string {
	if r.store == storePostgres {
		return fmt.Sprintf("$%d", i)
	}
	return "?"
}

var autoIncrementOption = regexp.MustCompile(`(?i)\s+AUTO_INCREMENT=\d+`)

// freshDDL is a SHOW CREATE TABLE statement for a fresh database: the
// table's AUTO_INCREMENT counter left out.
func freshDDL(stmt string) string { return autoIncrementOption.ReplaceAllString(stmt, "") }

// source is what init reads: the tables, the store they live in, and the
// database when one is given.
type source struct {
	tables      map[string]schemaddl.Table
	desc        string
	db          *readOnlyDB
	store       string
	storeReason string
	prelude     []string // PostgreSQL's CREATE TYPE statements the tables may use
}

func (s source) close() {
	if s.db != nil {
		s.db.close()
	}
}

// readSource reads the tables from --ddl, else from --dsn, and keeps the
// database open for the status words and the data's conventions.
func readSource(ctx context.Context, f Options) (source, error) {
	var s source
	if f.DSN != "" {
		db, err := openReadOnly(ctx, f.DSN)
		if err != nil {
			return s, err
		}
		s.db, s.desc = db, db.where
		s.store, s.storeReason = db.store, "the database --dsn names is "+storeTitle(db.store)
	}
	if f.DDL != "" {
		return s.readDDL(f.DDL)
	}
	stmts, err := s.db.createStatements(ctx)
	if err == nil {
		s.tables, err = schemaddl.ParseTables(stmts)
	}
	if err != nil {
		s.close()
		return s, fmt.Errorf("%s: %w", s.db.where, err)
	}
	for _, st := range stmts {
		if createType.MatchString(st) {
			s.prelude = append(s.prelude, st)
		}
	}
	return s, nil
}

// readDDL reads the tables of the --ddl file; without a database, the
// file's spelling says which store it is for.
func (s source) readDDL(path string) (source, error) {
	tables, err := readDDLFile(path)
	if err != nil {
		s.close()
		return s, err
	}
	s.tables, s.desc = tables, "DDL file "+path
	if s.db != nil {
		s.desc += " (status words also from " + s.db.where + ")"
		return s, nil
	}
	s.store, s.storeReason = storeMySQL, "GUESS: the DDL file spells nothing PostgreSQL's own (write postgres if the tables live in PostgreSQL)"
	for _, t := range tables {
		if m := postgresSpelling.FindString(t.Statement); m != "" {
			s.store, s.storeReason = storePostgres, fmt.Sprintf("GUESS: the DDL file spells %s, which is PostgreSQL's", strings.TrimSpace(m))
			break
		}
	}
	return s, nil
}

// postgresSpelling is what only PostgreSQL's DDL writes; createType is its
// CREATE TYPE statement.
var (
	postgresSpelling = regexp.MustCompile(`(?i)\b(BIGSERIAL|SMALLSERIAL|TIMESTAMPTZ|JSONB|BYTEA)\b|\bAS\s+IDENTITY\b|::[a-z]+`)
	createType       = regexp.MustCompile(`(?is)^\s*CREATE\s+TYPE\s`)
)

func storeTitle(store string) string {
	if store == storePostgres {
		return "PostgreSQL"
	}
	return "MySQL or MariaDB"
}
