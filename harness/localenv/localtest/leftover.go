package localtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// leftoverPatience is how long processes on their way out (a server killed
// at cleanup, an instance reaped by its supervisor) get to end.
const leftoverPatience = 15 * time.Second

// RequireNothingLeft is the "nothing is left running" check of a test that
// runs the harness in a child process: within 15 s no live process names
// tmp or any of also on its command line (private servers name their data
// directories, instances their binaries), and tmp holds no entry whose name
// starts with prefix ("" for any entry).
func RequireNothingLeft(t testing.TB, tmp, prefix string, also ...string) {
	t.Helper()
	dirs := append([]string{tmp}, also...)
	deadline := time.Now().Add(leftoverPatience)
	for left := ProcessesMentioning(dirs...); len(left) > 0; left = ProcessesMentioning(dirs...) {
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatalf("read %s: %v", tmp, err)
	}
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			left = append(left, e.Name())
		}
	}
	if len(left) > 0 {
		t.Fatalf("left in %s: %v", tmp, left)
	}
}

// ProcessesMentioning lists the command lines of the live processes that
// name any of dirs.
func ProcessesMentioning(dirs ...string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		for _, d := range dirs {
			if strings.Contains(line, d) {
				found = append(found, line)
				break
			}
		}
	}
	return found
}
