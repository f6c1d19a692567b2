package clockskew

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// nowHead is the start of time.Now in the standard library; the overlay
// adds the skew right after the runtime's reading.
const nowHead = "func Now() Time {\n\tsec, nsec, mono := runtimeNow()\n"

// skewFile is added to package time: the skew FAKETIME names, read once
// when package time initialises (syscall.Getenv works by then). It accepts
// FAKETIME's relative form only ("+15s", "-10", "-2m", "+1h", "-1d"); any
// other value, an absolute date for one, leaves the clock alone.
const skewFile = `// Code added by outboxchaos (harness/clockskew): a wall-clock skew.

package time

import "syscall"

var outboxchaosSkew = outboxchaosSkewFromEnv()

func outboxchaosSkewFromEnv() int64 {
	v, ok := syscall.Getenv("FAKETIME")
	if !ok || len(v) < 2 || (v[0] != '+' && v[0] != '-') {
		return 0
	}
	body, unit := v[1:], int64(1)
	switch body[len(body)-1] {
	case 's':
		body = body[:len(body)-1]
	case 'm':
		body, unit = body[:len(body)-1], 60
	case 'h':
		body, unit = body[:len(body)-1], 3600
	case 'd':
		body, unit = body[:len(body)-1], 86400
	}
	if body == "" {
		return 0
	}
	var n int64
	for _, c := range body {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	if v[0] == '-' {
		n = -n
	}
	return n * unit
}
`

// Overlay writes, under dir, a `go build -overlay` file that makes
// time.Now of the Go toolchain goCmd add the FAKETIME skew, and returns
// its path. It fails, saying so, when this Go's time.Now does not have
// the shape the overlay patches.
func Overlay(ctx context.Context, goCmd, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, goCmd, "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("clock overlay: go env GOROOT: %w", err)
	}
	timeDir := filepath.Join(strings.TrimSpace(string(out)), "src", "time")
	src, err := os.ReadFile(filepath.Join(timeDir, "time.go"))
	if err != nil {
		return "", fmt.Errorf("clock overlay: read time.go: %w", err)
	}
	if strings.Count(string(src), nowHead) != 1 {
		return "", fmt.Errorf("clock overlay: time.Now in %s does not start as expected: this Go cannot be skewed with clock: go-overlay", timeDir)
	}
	patched := strings.Replace(string(src), nowHead, nowHead+"\tsec += outboxchaosSkew\n", 1)
	dir, err = filepath.Abs(filepath.Join(dir, "clock-overlay"))
	if err != nil {
		return "", fmt.Errorf("clock overlay: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("clock overlay: %w", err)
	}
	files := map[string]string{"time.go": patched, "zz_outboxchaos_skew.go": skewFile}
	replace := map[string]string{}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return "", fmt.Errorf("clock overlay: %w", err)
		}
		replace[filepath.Join(timeDir, name)] = p
	}
	js, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", fmt.Errorf("clock overlay: %w", err)
	}
	path := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, js, 0o644); err != nil {
		return "", fmt.Errorf("clock overlay: %w", err)
	}
	return path, nil
}
