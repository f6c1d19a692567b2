package localenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// templateFormat changes whenever the install arguments change, so an old
// cached template is never reused with new settings.
const templateFormat = "v1"

const templateMarker = "complete"

// templates memoises the template directory per key within the process.
var templates = struct {
	sync.Mutex
	dirs map[string]string
}{dirs: map[string]string{}}

// templateCacheRoot is where initialised data directories are cached.
func templateCacheRoot() string {
	if dir, err := os.UserCacheDir(); err == nil {
		root := filepath.Join(dir, "outboxchaos")
		if os.MkdirAll(root, 0o755) == nil {
			return root
		}
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("outboxchaos.cache-%d", os.Getuid()))
}

// mariadbTemplate returns a directory whose "data" subdirectory is a freshly
// initialised MariaDB data directory for bin, building it on first use.
func mariadbTemplate(ctx context.Context, bin string) (string, error) {
	key, err := templateKey(templateFormat, bin)
	if err != nil {
		return "", err
	}
	return cachedTemplate("mariadb-template-"+key, func(root, final string) error {
		return buildTemplate(ctx, bin, root, final)
	})
}

// cachedTemplate returns the template directory name under the cache root,
// having build make it (in root, renamed to final) when it is not there.
func cachedTemplate(name string, build func(root, final string) error) (string, error) {
	templates.Lock()
	defer templates.Unlock()
	if dir, ok := templates.dirs[name]; ok {
		return dir, nil
	}
	root := templateCacheRoot()
	final := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(final, templateMarker)); err != nil {
		if err := build(root, final); err != nil {
			return "", err
		}
	}
	templates.dirs[name] = final
	return final, nil
}

// templateKey identifies the server binary (path, size, mtime) and the
// install settings (format).
func templateKey(format, bin string) (string, error) {
	st, err := os.Stat(bin)
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", bin, err)
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d|%d|%d", format, bin, st.Size(), st.ModTime().UnixNano(), os.Getuid())))
	return hex.EncodeToString(h[:8]), nil
}

// buildTemplate initialises a data directory in a scratch directory and
// renames it to final; a concurrent builder that wins the rename is fine.
func buildTemplate(ctx context.Context, bin, root, final string) error {
	if err := requireMariaDB(ctx, bin); err != nil {
		return err
	}
	installer, err := FindBinary("mariadb-install-db", "mysql_install_db")
	if err != nil {
		return err
	}
	return installTemplate(root, final, bin, func(scratch string) error {
		return runInstaller(ctx, installer, bin, scratch)
	})
}

// installTemplate has fill write a template into a scratch directory of
// root, marks it complete (naming bin) and renames it to final; a
// concurrent builder that wins the rename is fine.
func installTemplate(root, final, bin string, fill func(scratch string) error) error {
	removeStaleScratch(root)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("create template cache %s: %w", root, err)
	}
	scratch, err := os.MkdirTemp(root, "scratch-")
	if err != nil {
		return fmt.Errorf("create template scratch dir: %w", err)
	}
	defer os.RemoveAll(scratch)
	if err := fill(scratch); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(scratch, templateMarker), []byte(bin+"\n"), 0o644); err != nil {
		return fmt.Errorf("write template marker: %w", err)
	}
	if err := os.Rename(scratch, final); err != nil {
		if _, serr := os.Stat(filepath.Join(final, templateMarker)); serr == nil {
			return nil // another process built it first
		}
		return fmt.Errorf("install template %s: %w", final, err)
	}
	return nil
}

// runInstaller runs mariadb-install-db into scratch/data with the same
// InnoDB sizes the servers use.
func runInstaller(ctx context.Context, installer, bin, scratch string) error {
	ctx, cancel := withDefaultTimeout(ctx, 2*time.Minute)
	defer cancel()
	args := []string{
		"--no-defaults",
		"--auth-root-authentication-method=normal",
		"--skip-test-db",
		"--datadir=" + filepath.Join(scratch, "data"),
		"--innodb-buffer-pool-size=" + bufferPoolSize,
		"--innodb-log-file-size=" + logFileSize,
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.CommandContext(ctx, installer, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("initialise MariaDB data directory with %s (server %s): %w\n%s",
			installer, bin, err, lastLines(string(out), logTailLines))
	}
	return nil
}

// requireMariaDB refuses a mysqld that is Oracle MySQL: localenv initialises
// data directories the MariaDB way.
func requireMariaDB(ctx context.Context, bin string) error {
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %w: %s", bin, err, strings.TrimSpace(string(out)))
	}
	if !strings.Contains(string(out), "MariaDB") {
		return fmt.Errorf("%s is not MariaDB (%s): local servers need MariaDB: install it with `apt-get install mariadb-server`",
			bin, strings.TrimSpace(string(out)))
	}
	return nil
}

// removeStaleScratch removes scratch directories left by builders that died
// more than ten minutes ago.
func removeStaleScratch(root string) {
	dirs, _ := filepath.Glob(filepath.Join(root, "scratch-*"))
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && time.Since(st.ModTime()) > 10*time.Minute {
			_ = os.RemoveAll(d)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// copyTree copies the regular files and directories under src to dst,
// keeping permissions.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm())
		case info.Mode().IsRegular():
			return copyFile(path, target, info.Mode().Perm())
		default:
			return nil // sockets, links: not part of a data directory
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
