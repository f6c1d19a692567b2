package localenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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

	_, err = StartPostgres(context.Background(), PostgresOptions{})
	require.ErrorIs(t, err, ErrBinaryNotFound)
	require.ErrorContains(t, err, "postgres and initdb not found together")
	require.ErrorContains(t, err, "`apt-get install postgresql`")
}

// Without postgres on PATH, the newest Debian version directory that holds
// both postgres and initdb is used: the two binaries always come from one
// directory, so they are of one version.
func TestPostgresBinariesFromDebianDirs(t *testing.T) {
	lib := t.TempDir()
	for _, f := range []string{"12/bin/postgres", "12/bin/initdb", "15/bin/postgres", "15/bin/initdb", "16/bin/postgres"} {
		p := filepath.Join(lib, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
	}
	old := postgresLibGlob
	postgresLibGlob = filepath.Join(lib, "*", "bin")
	t.Cleanup(func() { postgresLibGlob = old })
	t.Setenv("PATH", t.TempDir())
	if _, err := FindBinary("postgres"); err == nil {
		t.Skip("postgres is installed in /usr/sbin or /usr/local/sbin, which come before the Debian directories")
	}
	pg, initdb, err := PostgresBinaries()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(lib, "15", "bin", "postgres"), pg)
	require.Equal(t, filepath.Join(lib, "15", "bin", "initdb"), initdb)

	onPath := t.TempDir()
	for _, f := range []string{"postgres", "initdb"} {
		require.NoError(t, os.WriteFile(filepath.Join(onPath, f), []byte("#!/bin/sh\n"), 0o755))
	}
	t.Setenv("PATH", onPath)
	pg, _, err = PostgresBinaries()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(onPath, "postgres"), pg, "PATH comes first")
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
