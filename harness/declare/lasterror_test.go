package declare

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestErrorPrefixIsWhatAKindOfReturnShares(t *testing.T) {
	for text, want := range map[string]string{
		"released: lease nearly over":                     "released: ",
		"lease expired, owner room-2":                     "lease expired, owner ",
		"retry 3: add job: dial tcp: connection refused":  "retry ",
		"attempt 2 of 8: connect ECONNREFUSED":            "attempt ",
		"max_attempts: attempt 8 of 8: timeout":           "max_attempts: ",
		"shutting down: given back":                       "shutting down: ",
		"released":                                        "released",
		"42 is not a job":                                 "",
		"recovered after the lease of node-3 ran out: ok": "recovered after the ",
	} {
		require.Equal(t, want, ErrorPrefix(text), text)
	}
}

// A prefix is a release or a recovery by its words alone; both or neither
// is neither.
func TestReadsAPrefixByItsWordsAlone(t *testing.T) {
	for prefix, want := range map[string][2]string{
		"released: ":            {Releases, "released"},
		"shutting down: ":       {Releases, "shutting down"},
		"lease expired, owner ": {Recoveries, "lease expired"},
		"leaseExpired: ":        {Recoveries, "lease expired"},
		"redis: ":               {Neither, ""},
		"stale release: ":       {Neither, ""},
	} {
		conv, word := ReadPrefix(prefix)
		require.Equal(t, want, [2]string{conv, word}, prefix)
	}
}

func TestGuessesTheClockFromCommandLines(t *testing.T) {
	for _, c := range []struct {
		start, build []string
		want, tag    string
	}{
		{[]string{"node", "main.js"}, nil, "faketime", "GUESS: node"},
		{[]string{"/usr/bin/python3", "-m", "relay"}, nil, "faketime", "GUESS: python3"},
		{[]string{"${WORK_DIR}/bin/relay"}, []string{"go", "build", "-o", "${WORK_DIR}/bin/relay", "."}, "go-overlay", "GUESS: the build step runs go build"},
		{[]string{"go", "run", "./cmd/relay"}, nil, "none", "EDIT: go run"},
		{[]string{"./dispatcher"}, []string{"make"}, "none", "EDIT"},
		{nil, nil, "none", "EDIT"},
	} {
		got := GuessClock(c.start, c.build)
		require.Equal(t, c.want, got.Value, "%+v", c)
		require.Contains(t, got.Reason, c.tag, "%+v", c)
	}
}
