package workload_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// referenceDB returns a fresh database holding the contract's schema.
func referenceDB(t *testing.T) *sql.DB {
	t.Helper()
	db, _ := localtest.MySQL(t)
	for _, stmt := range schema.Reference().DDL {
		_, err := db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	return db
}

// privateRedis returns a client of a private redis-server for this test.
func privateRedis(t *testing.T) *redis.Client {
	t.Helper()
	r := localtest.Redis(t)
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// eventually polls cond every 20 ms until it holds or 20 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
