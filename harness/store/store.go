// Package store names the kinds of database an outbox can live in and what
// the harness does on each: install its history triggers, read what they
// recorded, scan the final rows, and speak its SQL dialect. A store's
// private servers are harness/localenv's and harness/env's; its wire
// protocol faults are harness/faultproxy's.
//
//   - mysql: MySQL 8 and MariaDB 10.6+ (harness/observe's triggers).
//   - postgres: PostgreSQL 13+ (harness/store/postgres's triggers).
//
// Every store records the same history (history.Transition, OutboxRow,
// JobRow), so every checker runs unchanged; harness/model derives the
// canonical transitions from any store's records.
package store

import (
	"context"
	"database/sql"
	"fmt"

	_ "github.com/go-sql-driver/mysql" // the mysql driver
	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/store/postgres"
)

// Store is one kind of database.
type Store interface {
	// Name is "mysql" or "postgres": the fault proxy's dependency and the
	// history's fault targets ("mysql/d1") name the store by it.
	Name() string
	// Driver is its database/sql driver name.
	Driver() string
	Dialect() model.Dialect
	// HistoryTable is the triggers' history table, quoted; its records
	// have the columns tbl, row_id, seq and writer on every store.
	HistoryTable() string
	InstallTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error
	ReadTransitions(ctx context.Context, db *sql.DB, m schema.Mapping, afterSeq int64) ([]history.Transition, error)
	ScanOutbox(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.OutboxRow, error)
	ScanJobs(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.JobRow, error)
	// TimePrecision is how many fractional digits of a second the server
	// keeps in table's time column (6: microseconds; precision.go).
	TimePrecision(ctx context.Context, db *sql.DB, table, column string) (int, error)
	// WholeSeconds is the statement that alters table's time column to
	// whole seconds, keeping its type, nullability and default.
	WholeSeconds(ctx context.Context, db *sql.DB, table, column string) (string, error)
}

// Names of the stores.
const (
	NameMySQL    = "mysql"
	NamePostgres = "postgres"
)

// Named is the store called name ("" is MySQL, the contract's own).
func Named(name string) (Store, error) {
	switch name {
	case "", NameMySQL:
		return MySQL, nil
	case NamePostgres:
		return Postgres, nil
	}
	return nil, fmt.Errorf("store %q: use mysql (MySQL or MariaDB) or postgres", name)
}

// MySQL is the MySQL and MariaDB store.
var MySQL Store = mysqlStore{}

type mysqlStore struct{}

func (mysqlStore) Name() string           { return NameMySQL }
func (mysqlStore) Driver() string         { return "mysql" }
func (mysqlStore) Dialect() model.Dialect { return model.MySQL }
func (mysqlStore) HistoryTable() string   { return model.MySQL.Quote(observe.HistoryTable) }

func (mysqlStore) InstallTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	return observe.InstallTriggers(ctx, db, m)
}

func (mysqlStore) ReadTransitions(ctx context.Context, db *sql.DB, m schema.Mapping, afterSeq int64) ([]history.Transition, error) {
	return observe.ReadTransitions(ctx, db, m, afterSeq)
}

func (mysqlStore) ScanOutbox(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.OutboxRow, error) {
	return observe.ScanOutboxRows(ctx, db, m)
}

func (mysqlStore) ScanJobs(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.JobRow, error) {
	return observe.ScanJobs(ctx, db, m)
}

// Postgres is the PostgreSQL store.
var Postgres Store = postgresStore{}

type postgresStore struct{}

func (postgresStore) Name() string           { return NamePostgres }
func (postgresStore) Driver() string         { return "pgx" }
func (postgresStore) Dialect() model.Dialect { return model.Postgres }
func (postgresStore) HistoryTable() string {
	return model.Postgres.Quote(postgres.HistorySchema) + "." + model.Postgres.Quote(postgres.HistoryTable)
}

func (postgresStore) InstallTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	return postgres.InstallTriggers(ctx, db, m)
}

func (postgresStore) ReadTransitions(ctx context.Context, db *sql.DB, m schema.Mapping, afterSeq int64) ([]history.Transition, error) {
	return postgres.ReadTransitions(ctx, db, m, afterSeq)
}

func (postgresStore) ScanOutbox(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.OutboxRow, error) {
	return postgres.ScanOutboxRows(ctx, db, m)
}

func (postgresStore) ScanJobs(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.JobRow, error) {
	return postgres.ScanJobs(ctx, db, m)
}

func (postgresStore) TimePrecision(ctx context.Context, db *sql.DB, table, column string) (int, error) {
	return postgres.TimePrecision(ctx, db, table, column)
}

func (postgresStore) WholeSeconds(ctx context.Context, db *sql.DB, table, column string) (string, error) {
	return postgres.WholeSeconds(ctx, db, table, column)
}
