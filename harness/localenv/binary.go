package localenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// extraSearchDirs are searched after PATH: Debian installs mariadbd in
// /usr/sbin, which is not on an unprivileged user's PATH.
var extraSearchDirs = []string{"/usr/sbin", "/usr/local/sbin"}

// searchPathOverride, when non-empty, replaces PATH and extraSearchDirs for
// binary lookups. Tests use it to simulate a machine without the servers.
var searchPathOverride string

// ErrBinaryNotFound is wrapped by every error about a missing server binary.
var ErrBinaryNotFound = errors.New("binary not found")

// installHint names the Debian package providing each binary.
var installHint = map[string]string{
	"mariadbd":           "mariadb-server",
	"mysqld":             "mariadb-server",
	"mariadb-install-db": "mariadb-server",
	"mysql_install_db":   "mariadb-server",
	"redis-server":       "redis-server",
	"postgres":           "postgresql",
	"initdb":             "postgresql",
}

// searchDirs lists the directories searched for a binary, in order.
func searchDirs() []string {
	if searchPathOverride != "" {
		return filepath.SplitList(searchPathOverride)
	}
	return append(filepath.SplitList(os.Getenv("PATH")), extraSearchDirs...)
}

// FindBinary returns the absolute path of the first of names found on PATH,
// /usr/sbin or /usr/local/sbin. The error names the first binary and the
// Debian package to install.
func FindBinary(names ...string) (string, error) {
	if len(names) == 0 {
		return "", errors.New("find binary: no name given")
	}
	for _, name := range names {
		for _, dir := range searchDirs() {
			if dir == "" {
				continue
			}
			p := filepath.Join(dir, name)
			if isExecutable(p) {
				return p, nil
			}
		}
	}
	return "", missingBinaryError(names)
}

func missingBinaryError(names []string) error {
	where := "PATH, /usr/sbin or /usr/local/sbin"
	if searchPathOverride != "" {
		where = searchPathOverride
	}
	what := names[0]
	if len(names) > 1 {
		what = strings.Join(names, " or ")
	}
	pkg := installHint[names[0]]
	if pkg == "" {
		return fmt.Errorf("%s not found on %s: %w", what, where, ErrBinaryNotFound)
	}
	return fmt.Errorf("%s not found on %s: install it with `apt-get install %s`: %w",
		what, where, pkg, ErrBinaryNotFound)
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// MariaDBBinary returns the MariaDB server binary: mariadbd, else mysqld.
func MariaDBBinary() (string, error) { return FindBinary("mariadbd", "mysqld") }

// RedisBinary returns the redis-server binary.
func RedisBinary() (string, error) { return FindBinary("redis-server") }

// postgresLibGlob is where Debian installs each PostgreSQL major version's
// server binaries (not on PATH).
var postgresLibGlob = "/usr/lib/postgresql/*/bin"

// PostgresBinaries returns the postgres and initdb binaries, taken from one
// directory so that they are of one version: the first directory on PATH
// (then /usr/sbin, /usr/local/sbin) holding both, else the newest
// /usr/lib/postgresql/VERSION/bin holding both. The error names the Debian
// package to install.
func PostgresBinaries() (postgres, initdb string, err error) {
	dirs := searchDirs()
	if searchPathOverride == "" {
		dirs = append(dirs, debianPostgresDirs()...)
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		p, i := filepath.Join(dir, "postgres"), filepath.Join(dir, "initdb")
		if isExecutable(p) && isExecutable(i) {
			return p, i, nil
		}
	}
	where := "PATH, /usr/sbin, /usr/local/sbin or " + postgresLibGlob
	if searchPathOverride != "" {
		where = searchPathOverride
	}
	return "", "", fmt.Errorf("postgres and initdb not found together on %s: install them with `apt-get install postgresql`: %w",
		where, ErrBinaryNotFound)
}

// debianPostgresDirs lists the directories of postgresLibGlob, the newest
// major version first.
func debianPostgresDirs() []string {
	dirs, _ := filepath.Glob(postgresLibGlob)
	major := func(dir string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		return n
	}
	sort.SliceStable(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	return dirs
}
