package localenv

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMissingBinaryNamesDebianPackage(t *testing.T) {
	searchPathOverride = t.TempDir()
	t.Cleanup(func() { searchPathOverride = "" })

	_, err := StartMariaDB(context.Background(), MariaDBOptions{})
	require.ErrorIs(t, err, ErrBinaryNotFound)
	require.ErrorContains(t, err, "mariadbd or mysqld not found")
	require.ErrorContains(t, err, "`apt-get install mariadb-server`")

	_, err = StartRedis(context.Background(), RedisOptions{})
	require.True(t, errors.Is(err, ErrBinaryNotFound))
	require.ErrorContains(t, err, "redis-server not found")
	require.ErrorContains(t, err, "`apt-get install redis-server`")
}

func TestFindBinaryOnPath(t *testing.T) {
	p, err := RedisBinary()
	require.NoError(t, err)
	require.True(t, isExecutable(p))
	_, err = FindBinary()
	require.Error(t, err)
}

func TestFreePortNeverRepeatsOrReserved(t *testing.T) {
	seen := map[int]bool{}
	for range 20 {
		p, err := freePort()
		require.NoError(t, err)
		require.False(t, seen[p], "port %d handed out twice", p)
		require.NotContains(t, reservedPorts, p)
		seen[p] = true
	}
}
