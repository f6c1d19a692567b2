package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// pasted loads a manifest that declares nothing but yaml's lines, as a
// person pasting a suggestion into a first manifest would, and returns
// its conventions.
func pasted(t *testing.T, yaml string) history.Conventions {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.yaml")
	first := "name: first\nstart:\n  command: sh\n  args: [-c, \"exit 0\"]\nschema: reference\n"
	require.NoError(t, os.WriteFile(path, []byte(first+yaml), 0o644))
	a, err := manifest.Load(path)
	require.NoError(t, err, "the suggested lines must load:\n%s", yaml)
	return a.Conventions()
}

// go-nolock's recorded redis-latency run without its declarations is
// issue 24's first run: its owner gives back claims it cannot start in time
// ("released: lease nearly over") while the latency is on, and I6 comes
// out unknown. The report names the conventions block with the prefix
// the run wrote; pasted into a manifest and loaded, it gives the run its
// recorded verdicts back.
func TestDeclarationsNameTheMissingConventions(t *testing.T) {
	run := loadStored(t, "recorded-go-nolock-redis-latency")
	declared := run.Meta.Conventions
	require.True(t, declared.Declared())
	run.Meta.Conventions = history.Conventions{}
	results := Evaluate(run)
	require.Equal(t, "PPPPPUNNP", letters(results), describe(results))

	got := Declarations(run, results)
	require.Len(t, got, 1)
	s := got[0]
	require.Equal(t, declare.SectionConventions, s.Section)
	require.Equal(t, []string{"I6"}, s.Settles)
	require.NotEmpty(t, s.Prefixes)
	require.Equal(t, "released: ", s.Prefixes[0].Prefix, s.YAML)
	require.Equal(t, declare.Releases, s.Prefixes[0].Convention)
	for _, p := range s.Prefixes {
		for _, id := range p.Events {
			require.True(t, wroteReturn(run, id, p.Prefix), "event %d never returned to pending with %q", id, p.Prefix)
		}
	}

	t.Logf("%s\n%s", s.Why, s.YAML)
	run.Meta.Conventions = pasted(t, s.YAML)
	require.Equal(t, []string{"released: "}, run.Meta.Conventions.ReleaseErrors, s.YAML)
	again := Evaluate(run)
	require.Equal(t, "PPPPPNNNP", letters(again), describe(again))
	require.Empty(t, Declarations(run, again), "declared, nothing is left to suggest")
}

// wroteReturn tells whether event id went from processing to pending with
// a last_error that starts with prefix.
func wroteReturn(run history.Run, id int64, prefix string) bool {
	for _, tr := range newIndex(run).outbox[id] {
		if tr.OldStatus == history.StatusProcessing && tr.NewStatus == history.StatusPending && len(tr.LastError) >= len(prefix) && tr.LastError[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

// No suggestion when nothing is unknown for lack of a declaration: a clean
// run, or an unknown that is waived by the scenario.
func TestNoDeclarationWithoutAnUndeclaredUnknown(t *testing.T) {
	run := loadStored(t, "recorded-go-nolock-redis-latency")
	require.Empty(t, Declarations(run, Evaluate(run)))

	run.Meta.Conventions = history.Conventions{}
	results := Evaluate(run)
	for i := range results {
		results[i].Waived = "waived by the test"
	}
	require.Empty(t, Declarations(run, results))
}

// The reason dialect's Redis error returned with no backoff is unknown
// without a declaration; the suggestion names the prefix it saw but leaves
// it out of the live lines (its words read as an error), so pasting them
// can never turn the retry into a release.
func TestAnErrorPrefixIsNeverSuggestedAsARelease(t *testing.T) {
	run := recoveredWithReason(func(b *builder) {
		b.fault("blackhole", "redis", 2340, 2500)
		b.giveBack(1, 2400, "redis: i/o timeout", 0).claim(1, "d2", 2420)
		b.add("ai-default", "j-1", "j-1", 2600).publish(1, 2610)
	}).finish(2700, 12000, true)
	results := Evaluate(run)
	require.Equal(t, Unknown, Check(I6, run).Verdict)
	got := Declarations(run, results)
	require.Len(t, got, 1)
	require.Contains(t, got[0].Settles, "I6")
	require.Equal(t, []declare.SeenPrefix{{Prefix: "redis: ", Returns: 1, Events: []int64{1}}}, got[0].Prefixes)
	require.Contains(t, got[0].YAML, `# not declared: "redis: "`)
	require.False(t, pasted(t, got[0].YAML).Declared())
}
