package reference_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

// required is the smallest valid environment.
var required = []string{
	"OUTBOX_MYSQL_DSN=root@tcp(127.0.0.1:3306)/outbox?parseTime=true",
	"OUTBOX_REDIS_URL=redis://127.0.0.1:6379/0",
	"OUTBOX_QUEUES=ai-default, ai-bulk",
}

func environ(extra ...string) []string {
	return append(append([]string{"PATH=/usr/bin", "HOME=/root"}, required...), extra...)
}

func TestConfigDefaults(t *testing.T) {
	c, err := reference.ConfigFromEnv(environ())
	require.NoError(t, err)
	require.Equal(t, []string{"ai-default", "ai-bulk"}, c.Queues)
	require.NotEmpty(t, c.InstanceID)
	require.Equal(t, "bull", c.BullPrefix)
	require.Equal(t, 100*time.Millisecond, c.PollInterval)
	require.Equal(t, 100, c.BatchSize)
	require.Equal(t, 30*time.Second, c.Lease)
	require.Equal(t, 10, c.MaxAttempts)
	require.Equal(t, time.Second, c.BackoffBase)
	require.Equal(t, 5*time.Minute, c.BackoffMax)
	require.Equal(t, 5*time.Second, c.PublishTimeout)
	require.Equal(t, 168*time.Hour, c.DedupeHorizon)
	require.Equal(t, 10*time.Second, c.ShutdownTimeout)
	require.Equal(t, time.Second, c.RecoveryMargin, "min(lease/10, 1s)")
	require.Empty(t, c.MetricsAddr)
	require.Empty(t, c.Failpoints)
	require.EqualValues(t, 1, c.FailpointSeed)
	require.Equal(t, slog.LevelInfo, c.LogLevel)
}

func TestConfigReadsEveryVariable(t *testing.T) {
	c, err := reference.ConfigFromEnv(environ(
		"OUTBOX_MYSQL_URL=mysql://root:@127.0.0.1:3306/outbox",
		"OUTBOX_INSTANCE_ID=d2", "OUTBOX_BULL_PREFIX=myq",
		"OUTBOX_POLL_INTERVAL=50ms", "OUTBOX_BATCH_SIZE=200", "OUTBOX_LEASE=2s",
		"OUTBOX_MAX_ATTEMPTS=5", "OUTBOX_BACKOFF_BASE=100ms", "OUTBOX_BACKOFF_MAX=5s",
		"OUTBOX_PUBLISH_TIMEOUT=1s", "OUTBOX_DEDUPE_HORIZON=24h", "OUTBOX_SHUTDOWN_TIMEOUT=3s",
		"OUTBOX_METRICS_ADDR=:9090", "OUTBOX_FAILPOINTS=after-enqueue=crash@nth:3;after-claim=sleep(2s)@prob:0.25",
		"OUTBOX_FAILPOINT_SEED=42", "OUTBOX_LOG_LEVEL=debug",
	))
	require.NoError(t, err)
	require.Equal(t, "d2", c.InstanceID)
	require.Equal(t, "myq", c.BullPrefix)
	require.Equal(t, 50*time.Millisecond, c.PollInterval)
	require.Equal(t, 200, c.BatchSize)
	require.Equal(t, 2*time.Second, c.Lease)
	require.Equal(t, 5, c.MaxAttempts)
	require.Equal(t, 100*time.Millisecond, c.BackoffBase)
	require.Equal(t, 5*time.Second, c.BackoffMax)
	require.Equal(t, time.Second, c.PublishTimeout)
	require.Equal(t, 24*time.Hour, c.DedupeHorizon)
	require.Equal(t, 3*time.Second, c.ShutdownTimeout)
	require.Equal(t, 200*time.Millisecond, c.RecoveryMargin, "derived from the 2s lease")
	require.Equal(t, ":9090", c.MetricsAddr)
	require.Equal(t, "after-enqueue=crash@nth:3;after-claim=sleep(2s)@prob:0.25", c.Failpoints)
	require.EqualValues(t, 42, c.FailpointSeed)
	require.Equal(t, slog.LevelDebug, c.LogLevel)

	c, err = reference.ConfigFromEnv(environ("OUTBOX_LEASE=2s", "OUTBOX_PUBLISH_TIMEOUT=1s", "OUTBOX_RECOVERY_MARGIN=50ms"))
	require.NoError(t, err)
	require.Equal(t, 50*time.Millisecond, c.RecoveryMargin, "an explicit margin wins")
}

// TestDefaultsFollowTheValuesSet: a default tied to another value gives way
// to the value the user set; the contract's example OUTBOX_LEASE=2s alone
// starts.
func TestDefaultsFollowTheValuesSet(t *testing.T) {
	cases := []struct {
		name  string
		env   []string
		check func(t *testing.T, c reference.Config)
	}{
		{"a short lease pulls the publish timeout down", []string{"OUTBOX_LEASE=2s"}, func(t *testing.T, c reference.Config) {
			require.Equal(t, 2*time.Second, c.Lease)
			require.Equal(t, time.Second, c.PublishTimeout, "lease/2")
			require.Equal(t, 200*time.Millisecond, c.RecoveryMargin, "lease/10")
			require.Equal(t, 10*time.Second, c.ShutdownTimeout)
		}},
		{"a long publish timeout pushes the lease and the shutdown out", []string{"OUTBOX_PUBLISH_TIMEOUT=20s"}, func(t *testing.T, c reference.Config) {
			require.Equal(t, 40*time.Second, c.Lease, "2 x publish timeout")
			require.Equal(t, 40*time.Second, c.ShutdownTimeout, "2 x publish timeout")
			require.Equal(t, time.Second, c.RecoveryMargin)
		}},
		{"a long recovery margin pushes the lease out", []string{"OUTBOX_RECOVERY_MARGIN=20s"}, func(t *testing.T, c reference.Config) {
			require.Equal(t, 40*time.Second, c.Lease)
			require.Equal(t, 5*time.Second, c.PublishTimeout)
		}},
		{"a small backoff cap pulls the base down", []string{"OUTBOX_BACKOFF_MAX=300ms"}, func(t *testing.T, c reference.Config) {
			require.Equal(t, 300*time.Millisecond, c.BackoffBase)
			require.Equal(t, 300*time.Millisecond, c.BackoffMax)
		}},
		{"a large backoff base pushes the cap out", []string{"OUTBOX_BACKOFF_BASE=10m"}, func(t *testing.T, c reference.Config) {
			require.Equal(t, 10*time.Minute, c.BackoffBase)
			require.Equal(t, 10*time.Minute, c.BackoffMax)
		}},
		{"explicit values that fit are kept", []string{"OUTBOX_LEASE=3s", "OUTBOX_PUBLISH_TIMEOUT=1500ms", "OUTBOX_SHUTDOWN_TIMEOUT=1s"}, func(t *testing.T, c reference.Config) {
			require.Equal(t, 3*time.Second, c.Lease)
			require.Equal(t, 1500*time.Millisecond, c.PublishTimeout)
			require.Equal(t, time.Second, c.ShutdownTimeout)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := reference.ConfigFromEnv(environ(tc.env...))
			require.NoError(t, err)
			tc.check(t, c)
			d, err := reference.New(c)
			require.NoError(t, err, "New accepts the derived config")
			require.NoError(t, d.Close())
		})
	}
	c := reference.DefaultConfig()
	c.MySQLDSN, c.RedisURL, c.Queues = "root@tcp(127.0.0.1:1)/x", "redis://127.0.0.1:1/0", []string{"q"}
	c.Lease = 2 * time.Second
	require.Equal(t, time.Second, c.WithDerived().PublishTimeout, "a Config built in Go derives the same way")
	require.NoError(t, c.WithDerived().Validate())
}

func TestConfigErrorsNameTheVariable(t *testing.T) {
	cases := []struct {
		env  []string
		want string
	}{
		{environ("OUTBOX_LEASES=2s"), `config: OUTBOX_LEASES: unknown variable; did you mean OUTBOX_LEASE?`},
		{environ("OUTBOX_BATCHSIZE=10"), `config: OUTBOX_BATCHSIZE: unknown variable; did you mean OUTBOX_BATCH_SIZE?`},
		{environ("OUTBOX_QUEUE=x"), `config: OUTBOX_QUEUE: unknown variable; did you mean OUTBOX_QUEUES?`},
		{environ("OUTBOX_REDIS_URI=redis://x"), `config: OUTBOX_REDIS_URI: unknown variable; did you mean OUTBOX_REDIS_URL?`},
		{environ("OUTBOX_LEASE=abc"), `config: OUTBOX_LEASE="abc": not a duration (e.g. 30s)`},
		{environ("OUTBOX_POLL_INTERVAL=0s"), `config: OUTBOX_POLL_INTERVAL="0s": must be a positive duration (e.g. 30s)`},
		{environ("OUTBOX_BACKOFF_BASE=-1s"), `config: OUTBOX_BACKOFF_BASE="-1s": must be a positive duration (e.g. 30s)`},
		{environ("OUTBOX_BATCH_SIZE=0"), `config: OUTBOX_BATCH_SIZE="0": must be between 1 and 10000`},
		{environ("OUTBOX_BATCH_SIZE=10001"), `config: OUTBOX_BATCH_SIZE="10001": must be between 1 and 10000`},
		{environ("OUTBOX_BATCH_SIZE=ten"), `config: OUTBOX_BATCH_SIZE="ten": not a whole number (e.g. 100)`},
		{environ("OUTBOX_MAX_ATTEMPTS=0"), `config: OUTBOX_MAX_ATTEMPTS="0": must be between 1 and 1000`},
		{environ("OUTBOX_BACKOFF_BASE=2s", "OUTBOX_BACKOFF_MAX=1s"), `config: OUTBOX_BACKOFF_MAX="1s": conflicts with OUTBOX_BACKOFF_BASE=2s: the backoff cap must not be shorter than its base; raise OUTBOX_BACKOFF_MAX to 2s or more, lower OUTBOX_BACKOFF_BASE, or leave one unset to follow the other`},
		{environ("OUTBOX_LEASE=1s", "OUTBOX_PUBLISH_TIMEOUT=1s"), `config: OUTBOX_LEASE="1s": conflicts with OUTBOX_PUBLISH_TIMEOUT=1s: the lease must be at least twice the publish timeout, so a claim outlives a slow add; raise OUTBOX_LEASE to 2s or more, lower OUTBOX_PUBLISH_TIMEOUT to 500ms or less, or leave one unset to follow the other`},
		{environ("OUTBOX_LEASE=2s", "OUTBOX_PUBLISH_TIMEOUT=1s", "OUTBOX_RECOVERY_MARGIN=2s"), `config: OUTBOX_RECOVERY_MARGIN="2s": conflicts with OUTBOX_LEASE=2s: the recovery margin must be shorter than the lease`},
		{environ("OUTBOX_QUEUES=a,,b"), `config: OUTBOX_QUEUES="a,,b": has an empty queue name; remove the extra comma`},
		{environ("OUTBOX_QUEUES=a,b:c"), `config: OUTBOX_QUEUES="a,b:c": queue name "b:c" must not contain ':' or whitespace`},
		{environ("OUTBOX_QUEUES=a,a"), `config: OUTBOX_QUEUES="a,a": queue name "a" is listed twice`},
		{environ("OUTBOX_QUEUES="), `config: OUTBOX_QUEUES: is required: a comma-separated list of allowed queue names, e.g. ai-default,ai-bulk`},
		{environ("OUTBOX_INSTANCE_ID= "), `config: OUTBOX_INSTANCE_ID=" ": must not be empty; give each instance and each start its own id`},
		{environ("OUTBOX_BULL_PREFIX="), `config: OUTBOX_BULL_PREFIX: must be a non-empty key prefix without whitespace, e.g. bull`},
		{environ("OUTBOX_METRICS_ADDR=9090"), `config: OUTBOX_METRICS_ADDR="9090": not a host:port address, e.g. :9090 or 127.0.0.1:9090`},
		{environ("OUTBOX_LOG_LEVEL=loud"), `config: OUTBOX_LOG_LEVEL="loud": not a log level (debug, info, warn or error)`},
		{environ("OUTBOX_FAILPOINT_SEED=x"), `config: OUTBOX_FAILPOINT_SEED="x": not a 64-bit integer (e.g. 1)`},
		{environ("OUTBOX_FAILPOINTS=after-enqeue=crash"), `config: OUTBOX_FAILPOINTS="after-enqeue=crash": unknown failpoint "after-enqeue" (known: after-claim, after-enqueue, before-finalize-commit, after-finalize-commit)`},
		{environ("OUTBOX_MYSQL_DSN=secret@nowhere"), `config: OUTBOX_MYSQL_DSN: not a Go MySQL driver DSN`},
		{environ("OUTBOX_REDIS_URL=http://secret@x"), `config: OUTBOX_REDIS_URL: not a Redis URL`},
		{[]string{"OUTBOX_REDIS_URL=redis://x:1/0", "OUTBOX_QUEUES=a"}, `config: OUTBOX_MYSQL_DSN: is required`},
	}
	for _, c := range cases {
		_, err := reference.ConfigFromEnv(c.env)
		require.Error(t, err, "env %v", c.env[len(c.env)-1])
		require.True(t, reference.IsConfigError(err))
		require.Contains(t, err.Error(), c.want)
		require.NotContains(t, err.Error(), "secret", "connection strings are never echoed")
		require.NotContains(t, err.Error(), "\n")
	}
}

func TestNewValidatesConfig(t *testing.T) {
	c := reference.DefaultConfig()
	_, err := reference.New(c)
	require.True(t, reference.IsConfigError(err), "New refuses a config without connections: %v", err)
}
