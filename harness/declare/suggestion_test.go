package declare_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// plain is a manifest that declares no conventions and no clock, as a team
// writes first; build makes go-overlay loadable.
const plain = `name: plain
build:
  command: sh
  args: [-c, "exit 0"]
start:
  command: sh
  args: [-c, "exit 0"]
schema: reference
`

// load appends lines to plain and loads the result with the manifest
// loader, as a person pasting them would.
func load(t *testing.T, lines string) *manifest.Adapter {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.yaml")
	require.NoError(t, os.WriteFile(path, []byte(plain+lines), 0o644))
	a, err := manifest.Load(path)
	require.NoError(t, err, "the suggested lines must load:\n%s", lines)
	return a
}

// The returns of a dispatcher that gives back claims it will not start in
// time ("released: ..."; one repeats its last release's text, which counts
// under its prefix), one that a sweep recovered early by its words, one
// that kept an empty last_error, two Redis errors (one repeating the
// error an earlier write left), and one emptied.
func returns() []declare.Return {
	return []declare.Return{
		{Event: 7, LastError: "released: lease nearly over"},
		{Event: 3, LastError: "released: lease nearly over"},
		{Event: 9, LastError: "released: shutting down", OldLastError: "redis: i/o timeout"},
		{Event: 4, LastError: "lease expired, owner d1"},
		{Event: 5, LastError: "redis: i/o timeout", OldLastError: "redis: i/o timeout"},
		{Event: 6, LastError: "", OldLastError: ""},
		{Event: 8, LastError: "redis: connection refused"},
		{Event: 2, LastError: "", OldLastError: "released: x"},
		{Event: 10, LastError: "released: lease nearly over", OldLastError: "released: lease nearly over"},
	}
}

func TestConventionsSuggestionIsTheFactsOfTheRun(t *testing.T) {
	s := declare.Conventions([]string{"I4", "I6"}, returns())
	require.Equal(t, declare.SectionConventions, s.Section)
	require.Equal(t, []string{"I4", "I6"}, s.Settles)
	require.Equal(t, []declare.SeenPrefix{
		{Prefix: "released: ", Convention: declare.Releases, Word: "released", Returns: 4, Kept: 1, Events: []int64{3, 7, 9, 10}},
		{Prefix: "redis: ", Returns: 2, Kept: 1, Events: []int64{5, 8}},
		{Prefix: "lease expired, owner ", Convention: declare.Recoveries, Word: "lease expired", Returns: 1, Events: []int64{4}},
	}, s.Prefixes)
	require.Equal(t, 1, s.Kept)
	require.Equal(t, []int64{6}, s.KeptAt)
	require.Equal(t, 1, s.Unnamed)
	require.Contains(t, s.Why, "9 returns to pending")
	require.Contains(t, s.Why, "I4, I6 unknown")
	require.Equal(t, `conventions:
  releases:
    last_error_prefixes:
      - "released: "  # GUESS: a release by its words ("released"); seen on 4 returns (events 3, 7, 9, 10)
    keeps_last_error: true  # GUESS: 1 return (event 6) left last_error as it was, with nothing a prefix names
  recoveries:
    last_error_prefixes:
      - "lease expired, owner "  # GUESS: a recovery by its words ("lease expired"); seen on 1 return (event 4)
# not declared: "redis: ", seen on 2 returns (events 5, 8): its words read as neither a release nor a recovery
#   (1 of them left last_error as an earlier write had it: if the dispatcher's releases keep last_error,
#   declare keeps_last_error: true under releases; a retry that writes the same error again then reads as one too)
#   (declare one under releases only if the dispatcher writes it when it gives back a claim it has not
#   started; left out, the conventions judge those returns as retries without backoff: I6)
# 1 return emptied last_error or wrote one starting with a number: no prefix names them, and the conventions judge them as retries without backoff
`, s.YAML)

	// Pasted as printed, the lines load and declare exactly what was seen
	// and read as a release or a recovery; the Redis errors stay out.
	a := load(t, s.YAML)
	require.Equal(t, history.Conventions{
		ReleaseErrors: []string{"released: "}, ReleaseKeepsError: true,
		RecoveryErrors: []string{"lease expired, owner "},
	}, a.Conventions())
}

// A prefix with quotes, a backslash or a '#' is written so that the loader
// reads it back byte for byte.
func TestSuggestedPrefixesRoundTrip(t *testing.T) {
	s := declare.Conventions([]string{"I6"}, []declare.Return{{Event: 1, LastError: `released "#x" \ : y`}})
	require.Len(t, s.Prefixes, 1)
	require.Equal(t, `released "#x" \ `, s.Prefixes[0].Prefix)
	a := load(t, s.YAML)
	require.Equal(t, []string{s.Prefixes[0].Prefix}, a.Conventions().ReleaseErrors)
}

// When no prefix seen reads as a release or a recovery, nothing is
// declared live: the lines are comments, which load as nothing.
func TestNothingLiveWhenNoPrefixReadsAsARelease(t *testing.T) {
	s := declare.Conventions([]string{"I6"}, []declare.Return{{Event: 1, LastError: "redis: i/o timeout"}, {Event: 2, LastError: "redis: i/o timeout"}})
	for _, line := range strings.Split(strings.TrimSpace(s.YAML), "\n") {
		require.True(t, strings.HasPrefix(line, "#"), line)
	}
	require.Contains(t, s.YAML, `# not declared: "redis: ", seen on 2 returns (events 1, 2)`)
	require.False(t, load(t, s.YAML).Conventions().Declared())
}

func TestClockSuggestionLoads(t *testing.T) {
	for _, c := range []struct {
		start, build []string
		want         string
	}{
		{[]string{"node", "dist/main.js"}, nil, "faketime"},
		{[]string{"${WORK_DIR}/bin/relay"}, []string{"go", "build", "-o", "${WORK_DIR}/bin/relay", "."}, "go-overlay"},
		{[]string{"./dispatcher"}, nil, ""}, // none: loads, declares nothing, says EDIT
	} {
		s := declare.ClockSuggestion("clock-skew", c.start, c.build)
		require.Equal(t, declare.SectionClock, s.Section)
		require.Equal(t, []string{"clock-skew"}, s.Settles)
		require.NotNil(t, s.Clock)
		require.Contains(t, s.YAML, "\n  clock: ")
		require.Equal(t, c.want, load(t, s.YAML).Capabilities().Clock, s.YAML)
	}
}
