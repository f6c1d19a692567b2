package chaostest

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
	"github.com/outboxchaos/outboxchaos/reports"
)

const replay = "outboxchaos run --scenario poison --adapter mutant:poison-as-transient --seed 7 --out runs/poison"

// recorded re-checks a stored history as the runner would have, giving the
// Outcome a subtest gets and its results.json (as render builds it).
func recorded(t *testing.T, name string) (runner.Outcome, verdict.Results) {
	t.Helper()
	run, err := history.Load(filepath.Join("..", "..", "testdata", "histories", name))
	require.NoError(t, err)
	results := check.Evaluate(run)
	landing := check.CheckLanding(run)
	v, why := check.Decide(results, run.Meta.Exercises, landing)
	o := runner.Outcome{Dir: "runs/poison", Verdict: v, Reason: why, Results: results, Landing: landing, History: run}
	return o, reports.Build(run, results)
}

// A failed run's message tells the cause, the invariants, the events and
// the steps that prove it, and the replay command; all of it from the
// recorded history, none from the dispatcher's words.
func TestAFailedRunSaysWhatHappenedAndHowToReplayIt(t *testing.T) {
	o, res := recorded(t, "bad-i4-poison-retried")
	require.Equal(t, check.Fail, o.Verdict)
	act, msg := judge(o, res, false, replay, false)
	require.Equal(t, actFail, act)
	f := res.Findings[0]
	for _, want := range []string{
		"FAIL: " + res.Run.Scenario + " against " + res.Run.Adapter,
		"finding 1 of 1: " + f.Headline,
		"breaks: I4 ",
		"what happened to event ",
		"run folder runs/poison", "keep it with -chaostest.out=DIR",
		"reproduce: " + replay,
	} {
		require.Contains(t, msg, want)
	}
	lead, ok := lead(f, res)
	require.True(t, ok)
	require.Contains(t, msg, "[mysql] "+firstOf(lead.Steps, "mysql").Text, "the lead violation's steps are listed")
	_, kept := judge(o, res, false, replay, true)
	require.NotContains(t, kept, "removed when the test ends")
}

func firstOf(steps []check.Line, source string) check.Line {
	for _, s := range steps {
		if s.Source == source {
			return s
		}
	}
	return check.Line{}
}

func TestUnknownSkipsUnlessStrictAndMissingCapabilitiesSkip(t *testing.T) {
	o, res := recorded(t, "unknown-i1-gaps")
	require.Equal(t, check.Unknown, o.Verdict)
	act, msg := judge(o, res, false, replay, true)
	require.Equal(t, actSkip, act)
	require.Contains(t, msg, "unknown (unknown): "+strings.TrimSpace(o.Reason))
	require.Contains(t, msg, "reproduce: "+replay)
	act, msg = judge(o, res, true, replay, true)
	require.Equal(t, actFail, act)
	require.Contains(t, msg, "-chaostest.strict")

	act, msg = judge(runner.Outcome{Verdict: check.NotExercised, Reason: "I4: no poison events"}, verdict.Results{}, false, replay, true)
	require.Equal(t, actSkip, act, "any verdict but pass and fail is unknown")
	require.Contains(t, msg, "I4: no poison events")

	act, msg = judge(runner.Outcome{Skipped: "the adapter exposes no crash points", Verdict: check.Unknown}, verdict.Results{}, true, replay, true)
	require.Equal(t, actSkip, act, "a missing capability skips, strict or not")
	require.Equal(t, "skipped: the adapter exposes no crash points", msg)

	o, res = recorded(t, "good-clean")
	act, _ = judge(o, res, true, replay, true)
	require.Equal(t, actPass, act)
}

func TestCleanupGraceStaysWithinBounds(t *testing.T) {
	require.Equal(t, 5*time.Second, cleanupGrace(10*time.Second))
	require.Equal(t, 12*time.Second, cleanupGrace(2*time.Minute))
	require.Equal(t, 30*time.Second, cleanupGrace(time.Hour))
}

func TestFolderNameKeepsOneLevel(t *testing.T) {
	require.Equal(t, "TestOutbox_sub_case", folderName("TestOutbox/sub case"))
}
