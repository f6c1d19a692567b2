package bullmq_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference/dispatchtest"
)

// nodeDir holds package.json, package-lock.json and the scripts.
const nodeDir = "testdata/node"

// bullmqAliases are the npm aliases pinned in testdata/node/package.json.
var bullmqAliases = []string{"bullmq5", "bullmq6"}

// nodeProcTimeout bounds every node run, on top of each script's own bound.
const nodeProcTimeout = 90 * time.Second

// requireNode skips the test when node or the installed packages are missing.
func requireNode(t *testing.T) string {
	t.Helper()
	node, missing := findNode()
	if missing != "" {
		t.Skip(missing)
	}
	return node
}

// findNode returns the node binary, or why the compatibility tests cannot
// run: node or the pinned packages are missing.
func findNode() (node, missing string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", "BullMQ compatibility test skipped: `node` is not on PATH (install Node.js 18+)"
	}
	for _, alias := range bullmqAliases {
		if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", alias, "package.json")); err != nil {
			return "", fmt.Sprintf("BullMQ compatibility test skipped: %s is not installed; run `npm ci` in reference/bullmq/%s", alias, nodeDir)
		}
	}
	return node, ""
}

// nodeProc is one running compatibility script.
type nodeProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan json.RawMessage
	stderr *dispatchtest.Output
	done   chan error
}

// startNode runs `node script '<arg as JSON>'` in nodeDir; it is killed when
// the test ends.
func startNode(t *testing.T, node, script string, arg any) *nodeProc {
	t.Helper()
	raw, err := json.Marshal(arg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), nodeProcTimeout)
	cmd := exec.CommandContext(ctx, node, script, string(raw))
	cmd.Dir = nodeDir
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := &nodeProc{t: t, cmd: cmd, lines: make(chan json.RawMessage, 16), stderr: &dispatchtest.Output{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	require.NoError(t, cmd.Start(), "start node %s", script)
	go p.readLines(stdout)
	t.Cleanup(func() {
		cancel() // kills the process if it is still running
		go func() {
			for range p.lines { // unblock readLines if nobody read the output
			}
		}()
		<-p.done
	})
	return p
}

func (p *nodeProc) readLines(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		p.lines <- json.RawMessage(append([]byte(nil), sc.Bytes()...))
	}
	close(p.lines)
	p.done <- p.cmd.Wait()
	close(p.done)
}

// next decodes the script's next output line into v.
func (p *nodeProc) next(v any) {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			err := <-p.done
			p.t.Fatalf("node %s ended without the expected output (%v); stderr:\n%s", p.cmd.Args[1], err, p.stderr)
		}
		require.NoError(p.t, json.Unmarshal(line, v), "node output line %s", line)
	case <-time.After(nodeProcTimeout):
		p.t.Fatalf("node %s printed nothing for %v; stderr:\n%s", p.cmd.Args[1], nodeProcTimeout, p.stderr)
	}
}

// waitReady waits for the script's {"ready":true} line.
func (p *nodeProc) waitReady() {
	p.t.Helper()
	var ready struct{ Ready bool }
	p.next(&ready)
	require.True(p.t, ready.Ready, "first line of %s", p.cmd.Args[1])
}

// finish requires the script to exit 0 after printing everything.
func (p *nodeProc) finish() {
	p.t.Helper()
	for line := range p.lines {
		p.t.Fatalf("unexpected node output %s", line)
	}
	err := <-p.done
	require.NoError(p.t, err, "node %s failed; stderr:\n%s", p.cmd.Args[1], p.stderr)
}
