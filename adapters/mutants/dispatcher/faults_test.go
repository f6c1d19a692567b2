package dispatcher

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// The faults a test injects into a dispatcher: a Redis nobody answers on,
// and crash points that are recorded instead of killing the test binary.

// downRedis is a client of a port nobody listens on: every add fails.
func (e *env) downRedis() Option {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	e.t.Cleanup(func() { _ = rdb.Close() })
	return WithRedis(rdb)
}

// crashLog is a failpoint runtime that records the crash lines instead of
// dying, and runs onCrash at each.
type crashLog struct {
	buf     bytes.Buffer
	onCrash func()
}

func (c *crashLog) set(t *testing.T, spec string) Option {
	s, err := failpoint.Parse(spec, 1)
	require.NoError(t, err)
	return WithFailpoints(s.WithRuntime(failpoint.Runtime{Stderr: &c.buf, Kill: func() {
		if c.onCrash != nil {
			c.onCrash()
		}
	}}))
}

// points lists the failpoints passed, in order.
func (c *crashLog) points() []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(c.buf.String()), "\n") {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(line, "failpoint "), ": crash"))
	}
	return out
}
