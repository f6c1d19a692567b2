package reports

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

func TestAFaultThatDidNotLandMakesThePassUnknownAndIsShown(t *testing.T) {
	run := history.Run{Meta: history.Meta{Scenario: "crash-window", Adapter: "x<y>", Landing: []history.Requirement{
		{Fault: history.LandCrashWindow, AtLeast: 6, Planned: 8},
	}}}
	results := []check.Result{{ID: "I1", Name: "no duplicate job", Verdict: check.Pass, Reason: "fine"}}
	res := Build(run, results)
	require.Equal(t, check.Unknown, res.Verdict)
	require.Len(t, res.Landing, 1)
	require.False(t, res.Landing[0].Met)
	require.Equal(t, "0 of 8 planned kills fell inside an add->finalize window; 6 needed", res.Landing[0].Reason)

	var page bytes.Buffer
	require.NoError(t, renderRun(&page, run, res))
	html := page.String()
	require.Contains(t, html, `<section id="landing">`)
	require.Contains(t, html, "DID NOT LAND")
	require.Contains(t, html, "0 of 8 planned kills fell inside an add-&gt;finalize window; 6 needed")
	require.Contains(t, html, "the verdict does not count: 1 of 1 faults did not land")
	require.NotContains(t, html, "x<y>")
}

func TestNoRequirementsNoLandingSection(t *testing.T) {
	res := Build(history.Run{}, []check.Result{{ID: "I1", Verdict: check.Pass}})
	require.Equal(t, check.Pass, res.Verdict)
	require.NotNil(t, res.Landing, "results.json always has a landing list")
	var page bytes.Buffer
	require.NoError(t, renderRun(&page, history.Run{}, res))
	require.NotContains(t, page.String(), `id="landing"`)
}

// "What Redis lost" says whose loss it is: the environment's, or, for an
// adapter that declares durability: wait, one that I3 judges.
func TestLostAddsSectionSaysWhoseLossItIs(t *testing.T) {
	lost := []check.LostAdd{{Job: "job-7", Queue: "ai-default", BullID: "job-7", Events: []int64{7}, Acknowledged: true, Published: true}}
	for _, c := range []struct{ durability, says, not string }{
		{"", "no invariant counts these jobs against it", "fails I3"},
		{check.DurabilityWait, "a published event whose job is among these, never created again, fails I3", "no invariant counts"},
	} {
		run := history.Run{Meta: history.Meta{Scenario: "redis-loses-adds", Durability: c.durability}}
		res := Build(run, []check.Result{{ID: "I3", Name: "consistent", Verdict: check.Pass}})
		res.LostAdds = lost
		var page bytes.Buffer
		require.NoError(t, renderRun(&page, run, res))
		html := page.String()
		require.Contains(t, html, `<section id="lost-adds">`, c.durability)
		require.Contains(t, html, c.says)
		require.NotContains(t, html, c.not)
		require.Contains(t, html, "job job-7")
	}
}
