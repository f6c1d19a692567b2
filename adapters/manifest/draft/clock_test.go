package draft

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitsCommandLines(t *testing.T) {
	for in, want := range map[string]commandLine{
		"":                            {},
		"node main.js":                {command: "node", args: []string{"main.js"}},
		`./bin/d --name "a b" 'c d'`:  {command: "./bin/d", args: []string{"--name", "a b", "c d"}},
		"go build -o ${WORK_DIR}/b .": {command: "go", args: []string{"build", "-o", "${WORK_DIR}/b", "."}},
		`x ""`:                        {command: "x", args: []string{""}},
	} {
		got, err := splitCommand("--start", in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := splitCommand("--build", `go build "x`)
	require.ErrorContains(t, err, `--build "go build \"x": unclosed " quote (fix:`)
}

// The clock comes from what init can see: a go build step, or a runtime
// that reads the time through libc; anything else is left to the user.
func TestGuessesTheClockFromTheCommands(t *testing.T) {
	for _, c := range []struct {
		start, build, want, tag string
	}{
		{"node main.js", "node main.js --check", "faketime", "GUESS"},
		{"/usr/bin/python3 -m relay", "", "faketime", "GUESS"},
		{"java -jar relay.jar", "", "faketime", "GUESS"},
		{"npm start", "", "faketime", "GUESS"},
		{"${WORK_DIR}/bin/roomdispatcher", "go build -o ${WORK_DIR}/bin/roomdispatcher ./cmd/roomdispatcher", "go-overlay", "GUESS"},
		{"go run ./cmd/relay", "", "none", "EDIT: go run"},
		{"./dispatcher", "", "none", "EDIT"},
		{"./dispatcher", "make", "none", "EDIT"},
	} {
		start, err := splitCommand("--start", c.start)
		require.NoError(t, err)
		build, err := splitCommand("--build", c.build)
		require.NoError(t, err)
		got := guessClock(start, build)
		require.Equal(t, c.want, got.value, "%+v", c)
		require.Contains(t, got.reason, c.tag, "%+v", c)
	}
}
