package reports

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const chromiumPath = "/usr/bin/chromium"

// domText is s as a browser serializes a text node.
var domText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\u00a0", "&nbsp;").Replace

// artifactsDir is where tests keep files for a person to look at:
// $OUTBOXCHAOS_ARTIFACTS/<test name>, or the test's temporary folder.
func artifactsDir(t *testing.T) string {
	t.Helper()
	root := os.Getenv("OUTBOXCHAOS_ARTIFACTS")
	if root == "" {
		return t.TempDir()
	}
	dir := filepath.Join(root, filepath.Base(t.Name()))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

func chromium(ctx context.Context, t *testing.T, args ...string) []byte {
	t.Helper()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, chromiumPath, append(base, args...)...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Logf("chromium stderr: %s", ee.Stderr)
	}
	require.NoError(t, err, "chromium %v", args)
	return out
}

// TestChromiumRendersReports opens the reports of both stored runs and their
// summary in headless Chromium, checks what a reader sees, and keeps the
// pages with their screenshots as artifacts.
func TestChromiumRendersReports(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s not found: install it (apt-get install -y chromium) to render the reports in a real browser", chromiumPath)
	}
	root := artifactsDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var links []RunLink
	for _, name := range []string{"pass-baseline", "fail-several"} {
		run, checks := loadStored(t, name)
		require.NoError(t, WriteRun(filepath.Join(root, name), run, checks))
		links = append(links, RunLink{Path: name, Results: Build(run, checks)})
	}
	require.NoError(t, WriteSummary(root, links))

	url := func(parts ...string) string { return "file://" + filepath.Join(append([]string{root}, parts...)...) }
	dom := string(chromium(ctx, t, "--dump-dom", url("fail-several", FileHTML)))
	require.Contains(t, dom, `<div class="v">FAIL</div>`)
	require.Equal(t, 4, strings.Count(dom, `aria-label="swimlane"`), "a swimlane per violation")
	_, checks := loadStored(t, "fail-several")
	for _, r := range checks {
		for _, v := range r.Violations {
			require.Contains(t, dom, domText(v.Summary))
		}
	}
	dom = string(chromium(ctx, t, "--dump-dom", url("pass-baseline", FileHTML)))
	require.Contains(t, dom, `<div class="v">PASS</div>`)
	require.NotContains(t, dom, `id="violations"`)

	shots := map[string][]string{
		"fail-several.png":  {"fail-several", FileHTML},
		"pass-baseline.png": {"pass-baseline", FileHTML},
		"summary.png":       {FileHTML},
	}
	for file, page := range shots {
		shot := filepath.Join(root, file)
		chromium(ctx, t, "--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars", url(page...))
		st, err := os.Stat(shot)
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(10_000), "%s has content", file)
		t.Logf("%s: %s (page %s)", file, shot, url(page...))
	}
}
