package refadapter

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
)

// builds remembers the binaries this process built, so that every run of
// one work directory builds once.
var builds = &buildCache{done: map[string]bool{}}

type buildCache struct {
	mu   sync.Mutex // held during a build: one go build at a time
	done map[string]bool
}

func (c *buildCache) build(ctx context.Context, opts Options, bin string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := opts.Package + "\x00" + bin
	if c.done[key] {
		if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
			return nil
		}
		delete(c.done, key)
	}
	if err := goBuild(ctx, opts, bin); err != nil {
		return err
	}
	c.done[key] = true
	return nil
}

// Built reports whether this process built the package into bin.
func (c *buildCache) built(pkg, bin string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done[pkg+"\x00"+bin]
}

func goBuild(ctx context.Context, opts Options, bin string) error {
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return fmt.Errorf("reference adapter: bin dir: %w", err)
	}
	// The time.Now overlay (harness/clockskew, capabilities clock:
	// go-overlay): the binary is the plain one unless FAKETIME is set.
	overlay, err := clockskew.Overlay(ctx, opts.Go, filepath.Dir(bin))
	if err != nil {
		return fmt.Errorf("reference adapter: %w", err)
	}
	cmd := exec.CommandContext(ctx, opts.Go, "build", "-overlay="+overlay, "-o", bin, opts.Package)
	cmd.Dir = opts.ModuleDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("reference adapter: go build %s: %w\n%s", opts.Package, err, lastLines(out.String(), 30))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
