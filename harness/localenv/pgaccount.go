package localenv

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// DefaultPostgresUser is the account a private PostgreSQL runs as when the
// harness runs as root: initdb and postgres refuse to run as root, and
// Debian's postgresql package creates this user.
const DefaultPostgresUser = "postgres"

// pgAccount is the operating-system account a private PostgreSQL runs as.
type pgAccount struct {
	name     string
	uid, gid int
	cred     *syscall.Credential // nil: this process's own account
}

// postgresAccount resolves the account: as root, the user named (or
// DefaultPostgresUser); otherwise this process's own user, which a named
// user must then be.
func postgresAccount(name string) (pgAccount, error) {
	if os.Geteuid() != 0 {
		return currentAccount(name)
	}
	if name == "" {
		name = DefaultPostgresUser
	}
	u, err := user.Lookup(name)
	if err != nil {
		return pgAccount{}, fmt.Errorf("initdb and postgres refuse to run as root, and there is no user %q to run them as (%v): "+
			"install the postgresql package (`apt-get install postgresql` creates the postgres user) or create one with `useradd --system %s`",
			name, err, name)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if uid == 0 {
		return pgAccount{}, fmt.Errorf("user %q has uid 0: initdb and postgres refuse to run as root, name an unprivileged user", name)
	}
	return pgAccount{name: name, uid: uid, gid: gid, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}, nil
}

// currentAccount is this process's user; name, when given, must be it.
func currentAccount(name string) (pgAccount, error) {
	a := pgAccount{name: strconv.Itoa(os.Geteuid()), uid: os.Geteuid(), gid: os.Getegid()}
	if u, err := user.LookupId(a.name); err == nil {
		a.name = u.Username
	}
	if name != "" && name != a.name {
		return pgAccount{}, fmt.Errorf("postgres user %q: only root can run the server as another user; leave User empty to run it as %s", name, a.name)
	}
	return a, nil
}

// chownTree hands root and everything under it to the account; nothing to
// do when the server runs as this process's user.
func (a pgAccount) chownTree(root string) error {
	if a.cred == nil {
		return nil
	}
	return filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, a.uid, a.gid); err != nil {
			return fmt.Errorf("hand %s to user %s: %w", path, a.name, err)
		}
		return nil
	})
}

// checkReach says which directory above dir the account cannot enter: the
// server works in dir, so every directory on the way must let it through.
func (a pgAccount) checkReach(dir string) error {
	if a.cred == nil {
		return nil
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("stat %s: %w", d, err)
		}
		if !a.mayEnter(st) {
			return fmt.Errorf("user %s, which runs postgres, cannot enter %s (mode %v): the server's directory %s is below it; "+
				"allow it through (`chmod o+x %s`) or point TMPDIR at a directory it can enter", a.name, d, st.Mode().Perm(), dir, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// mayEnter reports whether the account may search the directory st.
func (a pgAccount) mayEnter(st os.FileInfo) bool {
	perm := st.Mode().Perm()
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return perm&0o001 != 0
	}
	switch {
	case int(sys.Uid) == a.uid:
		return perm&0o100 != 0
	case int(sys.Gid) == a.gid:
		return perm&0o010 != 0
	}
	return perm&0o001 != 0
}

// PostgresAccount describes the operating-system account StartPostgres
// would run the server as for user ("" = the default), or says why there
// is none.
func PostgresAccount(user string) (string, error) {
	a, err := postgresAccount(user)
	if err != nil {
		return "", err
	}
	if a.cred == nil {
		return a.name + " (this process's user)", nil
	}
	return fmt.Sprintf("%s (uid %d: initdb and postgres refuse to run as root)", a.name, a.uid), nil
}
