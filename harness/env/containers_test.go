package env

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"
)

// TestContainersFailFastWithoutDocker runs where no Docker daemon answers:
// Open must fail at once with a message saying what to do.
func TestContainersFailFastWithoutDocker(t *testing.T) {
	if dockerHealthWithin(context.Background()) == nil {
		t.Skip("a Docker daemon answers: TestContainersEnv covers this machine")
	}
	start := time.Now()
	_, err := Open(context.Background(), Config{Kind: KindTestcontainers})
	require.ErrorContains(t, err, "no Docker daemon answers")
	require.ErrorContains(t, err, "apt-get install")
	require.Less(t, time.Since(start), 2*dockerProbeTimeout, "must not hang without Docker")
}

// TestContainersEnv needs a Docker daemon (and the images, pulled on first
// use); it skips cleanly without one.
func TestContainersEnv(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	for _, image := range []string{DefaultMySQLImage, "mariadb:11"} {
		t.Run(image, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			e, err := Open(ctx, Config{Kind: KindTestcontainers, MySQLImage: image, RedisPersistence: true})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, e.Close()) })
			require.Equal(t, KindTestcontainers, e.Name())
			v, err := e.Versions(ctx)
			require.NoError(t, err)
			require.NotEmpty(t, v["mysql"])
			require.NotEmpty(t, v["redis"])

			require.NoError(t, e.MySQL().Kill())
			require.NoError(t, e.MySQL().Start(ctx))
			require.NoError(t, e.Redis().Restart(ctx))
			_, err = e.Versions(ctx)
			require.NoError(t, err, "servers answer at the re-read addresses after a restart")
		})
	}
}
