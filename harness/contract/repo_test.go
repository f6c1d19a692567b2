package contract_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// The repository-wide checks live here, beside TestHarnessLinksNoDispatcher:
// they read the tree as a contributor's clone has it.

// maxTrackedBytes is the largest file the repository may track. Built
// binaries, recorded runs and dumps are ignored (.gitignore) or trimmed.
const maxTrackedBytes = 1 << 20

// repoRoot is the repository's top directory: two levels above this
// package, where go.mod is.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "the repository root is two levels above harness/contract")
	return root
}

// trackedFiles lists the files git tracks under root, relative to it. It
// skips the test when git or the repository's .git is missing (a source
// tarball has neither), saying so.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: cannot list the tracked files")
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("%s has no .git: not a git checkout, so no tracked files to list", root)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	require.NoError(t, err, "git ls-files in %s", root)
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	require.NotEmpty(t, files, "git ls-files listed nothing in %s", root)
	return files
}

// oversized names every file in files (relative to root) larger than limit
// bytes, with its size, largest first. A tracked file deleted from the work
// tree is not counted: it is about to leave the index.
func oversized(root string, files []string, limit int64) ([]string, error) {
	type big struct {
		name string
		size int64
	}
	var found []big
	for _, f := range files {
		info, err := os.Lstat(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stat tracked file: %w", err)
		}
		if info.Mode().IsRegular() && info.Size() > limit {
			found = append(found, big{f, info.Size()})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].size > found[j].size })
	var out []string
	for _, b := range found {
		out = append(out, fmt.Sprintf("%s (%.1f MB)", b.name, float64(b.size)/(1<<20)))
	}
	return out, nil
}

// No tracked file is over 1 MB: a binary built at the root (go build
// ./cmd/outboxchaos writes ./outboxchaos) or a recorded run kept whole does
// not belong in the repository.
func TestNoTrackedFileOverOneMB(t *testing.T) {
	root := repoRoot(t)
	big, err := oversized(root, trackedFiles(t, root), maxTrackedBytes)
	require.NoError(t, err)
	require.Empty(t, big, "tracked files over 1 MB: remove them (git rm --cached), ignore them in .gitignore, or trim them")
}

// oversized finds a file over the limit and names it, so the check above
// can fail.
func TestOversizedNamesALargeFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "small.txt"), []byte("ok"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 2<<20), 0o644))
	big, err := oversized(dir, []string{"small.txt", "big.bin", "gone.txt"}, maxTrackedBytes)
	require.NoError(t, err)
	require.Equal(t, []string{"big.bin (2.0 MB)"}, big)
}
