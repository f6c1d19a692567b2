package localenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	dirPrefix     = "outboxchaos-"
	ownerFile     = "owner"
	serverPidFile = "server.pid"
	ownerMagic    = "outboxchaos-localenv"
)

// newServerDir creates the temporary directory of one server and records
// this process as its owner.
func newServerDir(kind string) (string, error) {
	dir, err := os.MkdirTemp("", dirPrefix+kind+"-")
	if err != nil {
		return "", fmt.Errorf("create temp dir: %w", err)
	}
	content := fmt.Sprintf("%s\npid=%d\nstart=%d\n", ownerMagic, os.Getpid(), selfStart())
	if err := writeFileAtomic(filepath.Join(dir, ownerFile), content); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("write owner file: %w", err)
	}
	return dir, nil
}

// writeFileAtomic writes content to a scratch file and renames it, so a
// reader never sees a partial file.
func writeFileAtomic(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// owner is the parsed owner file of a server directory.
type owner struct {
	pid   int
	start uint64
}

func readOwner(dir string) (owner, bool) {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return owner{}, false
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) == 0 || lines[0] != ownerMagic {
		return owner{}, false
	}
	var o owner
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, "=")
		switch k {
		case "pid":
			o.pid, _ = strconv.Atoi(v)
		case "start":
			o.start, _ = strconv.ParseUint(v, 10, 64)
		}
	}
	return o, o.pid > 0
}

// recordServerPid writes the pid of the running server into its directory
// for the stale-directory sweep.
func recordServerPid(dir string, pid int) error {
	return writeFileAtomic(filepath.Join(dir, serverPidFile), strconv.Itoa(pid)+"\n")
}

func readServerPid(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, serverPidFile))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}
