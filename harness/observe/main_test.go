package observe_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// withSchema returns a fresh database holding m's DDL.
func withSchema(t *testing.T, m schema.Mapping) *sql.DB {
	t.Helper()
	db, _ := localtest.MySQL(t)
	for _, stmt := range m.DDL {
		_, err := db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	return db
}

func privateRedis(t *testing.T) (*localenv.Redis, *redis.Client) {
	t.Helper()
	r := localtest.Redis(t)
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return r, rdb
}

// eventually polls cond every 20 ms until it holds or 30 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
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
