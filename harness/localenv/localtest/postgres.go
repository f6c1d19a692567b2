package localtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
)

var sharedPG struct {
	once sync.Once
	mu   sync.Mutex
	pg   *localenv.Postgres
	err  error
}

// PostgresServer returns the test binary's shared private PostgreSQL,
// starting it on first use. Do not Kill or Stop it in a test: start your
// own with localenv.StartPostgres for that.
func PostgresServer(t testing.TB) *localenv.Postgres {
	t.Helper()
	sharedPG.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		pg, err := localenv.StartPostgres(ctx, localenv.PostgresOptions{})
		sharedPG.mu.Lock()
		sharedPG.pg, sharedPG.err = pg, err
		sharedPG.mu.Unlock()
	})
	if sharedPG.err != nil {
		t.Fatalf("localtest: shared PostgreSQL: %v", sharedPG.err)
	}
	return sharedPG.pg
}

// Postgres creates a fresh empty database on the shared PostgreSQL and
// returns a pool to it (database/sql with pgx's driver) and its URL, for
// the superuser; the database is dropped and the pool closed when the test
// ends.
func Postgres(t testing.TB) (*sql.DB, string) {
	t.Helper()
	pg := PostgresServer(t)
	name := databaseName(t.Name())
	if err := execPG(pg.URL(""), `CREATE DATABASE "`+name+`"`); err != nil {
		t.Fatalf("localtest: create database %s: %v", name, err)
	}
	url := pg.URL(name)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatalf("localtest: open %s: %v", url, err)
	}
	t.Cleanup(func() {
		_ = db.Close()
		if err := execPG(pg.URL(""), `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Errorf("localtest: drop database %s: %v", name, err)
		}
	})
	return db, url
}

// execPG runs one statement on a connection of its own, within a minute.
func execPG(url, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, stmt)
	return err
}

// closeSharedPostgres closes the shared PostgreSQL, if started.
func closeSharedPostgres() {
	sharedPG.mu.Lock()
	defer sharedPG.mu.Unlock()
	if sharedPG.pg == nil {
		return
	}
	if err := sharedPG.pg.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "localtest: close shared PostgreSQL: %v\n", err)
	}
}

// ServerTempDir is a temporary directory, removed when the test ends, in
// which a private server may run whatever account it runs as: a test that
// points a child harness's TMPDIR somewhere uses it (t.TempDir() is closed
// to the postgres account a root harness runs PostgreSQL as).
func ServerTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "localtest-")
	if err != nil {
		t.Fatalf("localtest: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("localtest: %v", err)
	}
	return dir
}
