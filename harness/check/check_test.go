package check

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// verdictCase is what the checkers must say about one stored history:
// verdicts for I1..I9 as letters (P pass, F fail, U unknown, N not
// exercised), and for each
// failing invariant words its first violation's summary must contain.
type verdictCase struct {
	verdicts string
	summary  map[string][]string
	event    map[string]int64 // the first violation's EventID, per invariant
}

var verdictCases = map[string]verdictCase{
	"good-clean":              {verdicts: "PPPPPNNNP"},
	"good-chaos":              {verdicts: "PPPPPPNPP"},
	"exempt-i8-nobody-alive":  {verdicts: "PPPNPNNPP"},
	"pass-i1-stream-gap-only": {verdicts: "PPPNPNNNP"},
	"bad-i1-dedupe-horizon": {verdicts: "FPPNPNNPP",
		summary: map[string][]string{"I1": {"Job j-1 was created 2 times in BullMQ queue ai-default", "by d1 at 10:00:00.150", "by d2 at 10:00:02.170", "after d1 was killed"}},
		event:   map[string]int64{"I1": 1}},
	"bad-i1-numeric-ids": {verdicts: "FPPNPNNPP",
		summary: map[string][]string{"I1": {"Job j-1 was created 2 times", "as BullMQ jobs 1, 3"}},
		event:   map[string]int64{"I1": 1}},
	"bad-i1-proven-with-gaps": {verdicts: "FPPNPNNPU",
		summary: map[string][]string{"I1": {"Job j-1 was created 2 times"}},
		event:   map[string]int64{"I1": 1}},
	"bad-i2-never-claimed": {verdicts: "PFPNPNNNP",
		summary: map[string][]string{"I2": {"Event 2 (job j-2) was still pending at the end"}},
		event:   map[string]int64{"I2": 2}},
	"bad-i3-published-no-job": {verdicts: "PPFNPNNNP",
		summary: map[string][]string{"I3": {"Event 1 was published but no BullMQ job was ever created for its job j-1"}},
		event:   map[string]int64{"I3": 1}},
	"bad-i4-poison-retried": {verdicts: "NNPFPPNNN",
		summary: map[string][]string{"I4": {"Poison event 1 (unknown-type) was put back to pending", "by d1"}},
		event:   map[string]int64{"I4": 1}},
	"bad-i5-stolen-claim": {verdicts: "PPPNFNNNP",
		summary: map[string][]string{"I5": {"Event 1 was claimed by d2 at 10:00:00.600 while d1 still held it"}},
		event:   map[string]int64{"I5": 1}},
	"bad-i5-rewrite-finalized": {verdicts: "PPPNFNNPP",
		summary: map[string][]string{"I5": {"Event 1 was written again after it was published", "by d1"}},
		event:   map[string]int64{"I5": 1}},
	"bad-i6-no-backoff": {verdicts: "PPPNPFNNP",
		summary: map[string][]string{"I6": {"event 1", "less than half the expected backoff of 500ms"}},
		event:   map[string]int64{"I6": 1}},
	"bad-i7-retry-forever": {verdicts: "PPPNPPFNP",
		summary: map[string][]string{"I7": {"Event 1 was claimed again by d1", "after 3 transient failures"}},
		event:   map[string]int64{"I7": 1}},
	"bad-i7-failed-early": {verdicts: "NFPNPNFNN",
		summary: map[string][]string{"I7": {"Valid event 1 (job j-1) was failed by d1 at attempt 1, before the maximum of 5 attempts"}},
		event:   map[string]int64{"I7": 1}},
	"bad-i8-slow-recovery": {verdicts: "PPPNPNNFP",
		summary: map[string][]string{"I8": {"Event 1's claim by d1", "was killed", "taken over only at 10:00:10.000 by d2", "later than the bound of 6.1s", "from the tuning"}},
		event:   map[string]int64{"I8": 1}},
	"bad-i9-overwrite": {verdicts: "PPPNPPNNF",
		summary: map[string][]string{"I9": {"Job j-1's data in queue ai-default was overwritten", `{"jobId":"j-1","retry":2}`}},
		event:   map[string]int64{"I9": 1}},
	"unknown-i1-gaps":         {verdicts: "UPPNPNNNU"},
	"unknown-i2-not-quiesced": {verdicts: "NUPNPPNNN"},
	"pass-i9-read-across-gap": {verdicts: "PPPNPNNNP"},
	"unknown-i9-lived-in-gap": {verdicts: "PPPNPNNNU"},
	"bad-i9-overwrite-in-gap": {verdicts: "PPPNPNNNF",
		summary: map[string][]string{"I9": {"Job j-1's data in queue ai-default was overwritten", "when created at 10:00:00.151",
			`{"jobId":"j-1","retry":2}`, "when the observer's scan read it after a keyspace gap at 10:00:00.700"}},
		event: map[string]int64{"I9": 1}},
}

func loadStored(t *testing.T, name string) history.Run {
	t.Helper()
	run, err := history.Load(filepath.Join(historiesDir, name))
	require.NoError(t, err, "run: go test ./harness/check -run TestRegenerate -update")
	return run
}

func letter(v Verdict) string {
	if v == NotApplicable {
		return "A" // N is not exercised
	}
	return strings.ToUpper(string(v)[:1])
}

// letters is each result's verdict as one letter, in order.
func letters(results []Result) string {
	out := ""
	for _, r := range results {
		out += letter(r.Verdict)
	}
	return out
}

// verdicts is run's verdicts (I1..I9, and I10 when declared) as letters.
func verdicts(run history.Run) string { return letters(Evaluate(run)) }

// TestStoredHistories checks every stored history's verdicts, invariant by
// invariant, and the words of each failure.
func TestStoredHistories(t *testing.T) {
	require.Len(t, verdictCases, len(stored), "every stored history needs a verdict case")
	for name, want := range verdictCases {
		t.Run(name, func(t *testing.T) {
			results := Evaluate(loadStored(t, name))
			require.Len(t, results, 9)
			require.Equal(t, want.verdicts, letters(results), "verdicts I1..I9; results: %s", describe(results))
			for _, r := range results {
				checkResultShape(t, r)
				for _, word := range want.summary[r.ID] {
					require.Contains(t, r.Violations[0].Summary, word, "%s summary", r.ID)
				}
				if id, ok := want.event[r.ID]; ok {
					require.Equal(t, id, r.Violations[0].EventID, "%s event", r.ID)
				}
			}
		})
	}
}

// checkResultShape checks what every result must look like: a reason, and
// for a fail bounded violations with one-sentence summaries naming their
// event or job, and steps in time order.
func checkResultShape(t *testing.T, r Result) {
	t.Helper()
	require.NotEmpty(t, r.Reason, "%s has no reason", r.ID)
	require.Equal(t, nameOf(r.ID), r.Name)
	if r.Verdict != Fail {
		require.Empty(t, r.Violations, "%s is %s but has violations", r.ID, r.Verdict)
		return
	}
	require.NotEmpty(t, r.Violations)
	require.LessOrEqual(t, len(r.Violations), MaxViolations)
	for _, v := range r.Violations {
		require.NotContains(t, v.Summary, "\n")
		require.True(t, strings.HasSuffix(v.Summary, "."), "summary is a sentence: %q", v.Summary)
		names := (v.JobID != "" && strings.Contains(v.Summary, v.JobID)) ||
			strings.Contains(strings.ToLower(v.Summary), fmt.Sprintf("event %d", v.EventID))
		require.True(t, names, "%s summary names neither event %d nor job %s: %q", r.ID, v.EventID, v.JobID, v.Summary)
		require.NotEmpty(t, v.Steps)
		require.LessOrEqual(t, len(v.Steps), MaxSteps)
		for i := 1; i < len(v.Steps); i++ {
			require.False(t, v.Steps[i].At.Before(v.Steps[i-1].At), "steps out of order")
		}
		for _, s := range v.Steps {
			require.NotEmpty(t, s.Text)
			require.NotContains(t, s.Text, "\n")
		}
	}
}

func describe(results []Result) string {
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "\n  %s %s: %s", r.ID, r.Verdict, r.Reason)
	}
	return b.String()
}

func TestDuplicateStepsTellTheStory(t *testing.T) {
	r := Check(I1, loadStored(t, "bad-i1-dedupe-horizon"))
	require.Equal(t, Fail, r.Verdict)
	v := r.Violations[0]
	require.Equal(t, "j-1", v.JobID)
	require.Equal(t, []string{"d1", "d2"}, v.Instances)
	text := stepsText(v.Steps)
	for _, want := range []string{"d1 claimed event 1", "BullMQ created job j-1", "instance d1 was killed", "job hash ai-default:j-1 was deleted", "d2 took event 1 over", "d2 marked event 1 published"} {
		require.Contains(t, text, want)
	}
}

func TestDedupedReaddIsNotADuplicate(t *testing.T) {
	r := Check(I1, loadStored(t, "good-chaos"))
	require.Equal(t, Pass, r.Verdict, r.Reason)
	b := newBuilder("crash-window")
	crashAndReadd(b, false)
	run := b.finish(2600, 12000, true)
	require.Equal(t, Pass, Check(I1, run).Verdict)
	require.Equal(t, Pass, Check(I9, run).Verdict)
}

func TestTakenTwiceIsADuplicate(t *testing.T) {
	b := newBuilder("baseline").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	b.run.Takes = append(b.run.Takes,
		history.Take{Queue: "ai-default", JobID: "j-1", DataJobID: "j-1", Worker: "w1", At: ms(300)},
		history.Take{Queue: "ai-default", JobID: "j-1", DataJobID: "j-1", Worker: "w2", At: ms(310)})
	run := b.finish(400, 12000, true)
	r := Check(I1, run)
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "Job j-1 was taken by consumers 2 times: by w1")

	// The same two takes around a Redis restart are a redelivery.
	run.Faults = append(run.Faults, history.Fault{ID: 1, Kind: "restart", Target: "redis", Start: ms(305), End: ms(306)})
	require.Equal(t, Pass, Check(I1, run).Verdict)
}

func TestAlreadyQueuedAddIsADuplicate(t *testing.T) {
	b := newBuilder("baseline").start(0, "d1")
	b.produce(1, "j-1", history.KindAlreadyQueued, 50).claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	r := Check(I1, b.finish(300, 12000, true))
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "Job j-1 was already queued before event 1 was dispatched, yet BullMQ created it again: by d1")
}

func TestListedTwiceIsADuplicate(t *testing.T) {
	b := newBuilder("baseline").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	b.queue("ai-default").lists["wait"] = []string{"j-1", "j-1"}
	r := Check(I1, b.finish(300, 12000, true))
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "Job j-1 appears 2 times in queue ai-default at the end (in wait, wait).")
}

func TestUnmatchedCreationIsUnknown(t *testing.T) {
	b := newBuilder("baseline").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100).add("ai-default", "j-1", "j-1", 150).publish(1, 200)
	b.run.Stream = append(b.run.Stream, history.StreamEntry{Queue: "ai-default", ID: "1-0", At: ms(220), Event: "added", JobID: "77"})
	r := Check(I1, b.finish(300, 12000, true))
	require.Equal(t, Unknown, r.Verdict)
	require.Contains(t, r.Reason, "could not be matched to an ai_jobs row")
}

func TestGapsMakeUnknown(t *testing.T) {
	r := Check(I1, loadStored(t, "unknown-i1-gaps"))
	require.Equal(t, Unknown, r.Verdict)
	require.Contains(t, r.Reason, "both had gaps")

	r = Check(I2, loadStored(t, "unknown-i2-not-quiesced"))
	require.Equal(t, Unknown, r.Verdict)
	require.Contains(t, r.Reason, "run did not quiesce")

	// A triggers gap makes the transition checkers unknown, not pass.
	run := loadStored(t, "good-chaos")
	run.Gaps = append(run.Gaps, history.Gap{Source: "triggers", At: ms(500), Detail: "history table rotated"})
	for _, c := range []ID{I4, I5, I6, I7, I8} {
		require.Equal(t, Unknown, Check(c, run).Verdict)
	}
}

func TestStuckProcessingFailsEvenOnAShortDrain(t *testing.T) {
	b := newBuilder("lease-expiry").start(0, "d1", "d2")
	b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100).proc("d1", "kill", 200)
	run := b.finish(300, 4000, false) // lease ran out at 2.1s, recovery due by 3.15s
	r := Check(I2, run)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "Event 1 (job j-1) was still held by d1 at the end")
	r = Check(I8, run)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "was never taken over")
}

func TestLiveOwnerFinishingLateIsNotARecoveryFailure(t *testing.T) {
	b := newBuilder("redis-latency").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100)
	b.add("ai-default", "j-1", "j-1", 3900).publish(1, 4000)
	r := Check(I8, b.finish(4100, 15000, true))
	require.Equal(t, NotExercised, r.Verdict, "a live owner's claim is not a dead owner's: %s", r.Reason)
	require.Equal(t, "no dead owner's claim expired", r.Reason)
}

func TestMySQLOutageExemptsRecovery(t *testing.T) {
	run := loadStored(t, "bad-i8-slow-recovery")
	run.Faults = append(run.Faults, history.Fault{ID: 9, Kind: "down", Target: "mysql", Start: ms(1500), End: ms(5500)})
	require.Equal(t, Pass, Check(I8, run).Verdict)
	// A fault on the dead owner's own link does not excuse the others.
	run.Faults[len(run.Faults)-1].Target = "mysql/d1"
	require.Equal(t, Fail, Check(I8, run).Verdict)
}

func TestPoisonLeftPending(t *testing.T) {
	b := newBuilder("poison").start(0, "d1")
	b.produce(1, "j-1", history.KindIllegalJobID, 50)
	long := b.finish(100, 12000, true)
	r := Check(I4, long)
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "Poison event 1 (illegal-job-id) was still pending at the end instead of failed: docs/contract.md §2 step 2")
	short := long
	short.Meta.Ended = ms(1000)
	require.Equal(t, Unknown, Check(I4, short).Verdict)
}

func TestPoisonGotAJob(t *testing.T) {
	b := newBuilder("poison").start(0, "d1")
	b.produce(1, "j:1", history.KindIllegalJobID, 50).claim(1, "d1", 100).add("ai-default", "j:1", "j:1", 150).failPermanent(1, 200, "late check")
	r := Check(I4, b.finish(300, 12000, true))
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "BullMQ job j:1 was created for poison event 1 (illegal-job-id) by d1")
}

func TestBackoffSkippedWithoutTuning(t *testing.T) {
	run := loadStored(t, "bad-i6-no-backoff")
	run.Meta.Tuning.BackoffBase = 0
	r := Check(I6, run)
	require.Equal(t, NotExercised, r.Verdict)
	require.Contains(t, r.Reason, "does not honour max attempts and backoff base")
	run.Meta.Tuning.MaxAttempts = 0
	r = Check(I7, run)
	require.Equal(t, NotExercised, r.Verdict)
	require.Contains(t, r.Reason, "does not honour max attempts")
}

func TestNoBackoffFindsBothBreaches(t *testing.T) {
	r := Check(I6, loadStored(t, "bad-i6-no-backoff"))
	require.Equal(t, Fail, r.Verdict)
	require.Len(t, r.Violations, 2)
	require.Contains(t, r.Violations[1].Summary, "Event 2 was claimed by d1 at 10:00:00.300, 400ms before its backoff ended")
}

func TestBackoffAboveTheMaximum(t *testing.T) {
	b := newBuilder("redis-outage").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).claim(1, "d1", 100).failTransient(1, 200, errRedis, 9*time.Second)
	r := Check(I6, b.finish(300, 20000, true))
	require.Equal(t, Fail, r.Verdict)
	require.Contains(t, r.Violations[0].Summary, "more than the backoff maximum of 4s")
}

func TestMySQLLatencyWidensBackoffSlack(t *testing.T) {
	b := newBuilder("mysql-latency").start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 50).fault("blackhole", "redis", 90, 190)
	b.claim(1, "d1", 100).failTransient(1, 200, errRedis, 10*time.Millisecond)
	run := b.finish(300, 20000, true)
	require.Equal(t, Fail, Check(I6, run).Verdict)
	run.Faults = append(run.Faults, history.Fault{ID: 2, Kind: "latency", Target: "mysql", Params: map[string]string{"latency": "200ms", "jitter": "50"}, Start: ms(0), End: ms(1000)})
	require.Equal(t, Pass, Check(I6, run).Verdict)
}

func TestExpectedBackoff(t *testing.T) {
	tn := history.Tuning{BackoffBase: history.Duration(100 * time.Millisecond), BackoffMax: history.Duration(time.Second)}
	for n, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 80: time.Second} {
		require.Equal(t, want, expectedBackoff(tn, n), "n=%d", n)
	}
	tn.BackoffMax = 0
	require.Equal(t, 800*time.Millisecond, expectedBackoff(tn, 4))
	require.Positive(t, expectedBackoff(tn, 200))
}

func TestShape(t *testing.T) {
	cases := []struct {
		t     history.Transition
		owner string
		want  move
	}{
		{history.Transition{Op: "insert", NewStatus: "pending"}, "", moveInsert},
		{history.Transition{Op: "update", OldStatus: "pending", NewStatus: "processing", LockToken: "a"}, "", moveClaim},
		{history.Transition{Op: "update", OldStatus: "processing", NewStatus: "processing", LockToken: "b", OldLockToken: "a"}, "d1", moveTakeover},
		{history.Transition{Op: "update", OldStatus: "processing", NewStatus: "processing", LockToken: "a", OldLockToken: "a"}, "d1", moveExtend},
		// Without lock tokens, a new locked_by is a new owner.
		{history.Transition{Op: "update", OldStatus: "processing", NewStatus: "processing", LockedBy: "d2"}, "d1", moveTakeover},
		{history.Transition{Op: "update", OldStatus: "processing", NewStatus: "processing", LockedBy: "d1"}, "d1", moveExtend},
		{history.Transition{Op: "update", OldStatus: "processing", NewStatus: "pending", LastError: "x"}, "d1", moveReturn},
		{history.Transition{Op: "update", OldStatus: "processing", NewStatus: "published"}, "d1", moveFinalize},
		{history.Transition{Op: "update", OldStatus: "failed", NewStatus: "pending"}, "", moveRewrite},
		{history.Transition{Op: "delete", OldStatus: "published"}, "", moveDelete},
		// A deletion the outbox model reads as a publish finalizes.
		{history.Transition{Op: "delete", OldStatus: "processing", NewStatus: "published"}, "d1", moveFinalize},
		{history.Transition{Op: "delete", OldStatus: "published", NewStatus: "published"}, "", moveRewrite},
		// With neither tokens nor owners, a claim counts one more attempt.
		{history.Transition{Op: "update", OldStatus: "processing", NewStatus: "processing", Attempts: 3}, "@2", moveTakeover},
		{history.Transition{Op: "update", OldStatus: "processing", NewStatus: "processing", Attempts: 2}, "@2", moveExtend},
	}
	for i, c := range cases {
		var h *hold
		if c.owner != "" {
			h = &hold{Owner: c.owner}
			if n, ok := strings.CutPrefix(c.owner, "@"); ok {
				h = &hold{Attempts: int(n[0] - '0')}
			}
		}
		require.Equal(t, c.want, shape(c.t, h, ""), "case %d", i)
	}
}

func TestViolationsAreBounded(t *testing.T) {
	b := newBuilder("baseline").start(0, "d1")
	for i := int64(1); i <= 60; i++ {
		b.produce(i, "j-"+itoa(i), history.KindValid, 50)
	}
	r := Check(I2, b.finish(100, 12000, true))
	require.Equal(t, Fail, r.Verdict)
	require.Len(t, r.Violations, MaxViolations)
	require.Contains(t, r.Reason, "60 valid events not published; the first 50 are shown")

	b = newBuilder("redis-outage").start(0, "d1")
	b.run.Meta.Tuning.MaxAttempts = 2
	b.produce(1, "j-1", history.KindValid, 50)
	at := 100
	for n := 0; n < 40; n++ {
		b.claim(1, "d1", at).failTransient(1, at+10, errRedis, 4*time.Second)
		at += 4100
	}
	r = Check(I7, b.finish(at, at+10000, true))
	require.Equal(t, Fail, r.Verdict)
	require.LessOrEqual(t, len(r.Violations[0].Steps), MaxSteps)
}

func TestChecksDoNotChangeTheRun(t *testing.T) {
	run := loadStored(t, "good-chaos")
	// Shuffle the slices the checkers sort, then check nothing moved.
	run.Transitions[0], run.Transitions[5] = run.Transitions[5], run.Transitions[0]
	run.Events[0], run.Events[1] = run.Events[1], run.Events[0]
	before, err := json.Marshal(run)
	require.NoError(t, err)
	Evaluate(run)
	after, err := json.Marshal(run)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after))
}

func TestOverall(t *testing.T) {
	r := func(v Verdict, waived string) Result { return Result{ID: "I1", Verdict: v, Waived: waived} }
	require.Equal(t, Unknown, Overall(nil), "nothing checked is not a pass")
	require.Equal(t, Pass, Overall([]Result{r(Pass, ""), r(Pass, "")}))
	require.Equal(t, Unknown, Overall([]Result{r(Pass, ""), r(Unknown, "")}))
	require.Equal(t, Fail, Overall([]Result{r(Unknown, ""), r(Fail, ""), r(Pass, "")}))
	require.Equal(t, Pass, Overall([]Result{r(Pass, ""), r(Fail, "outage longer than the retry budget")}))
	require.Equal(t, Unknown, Overall([]Result{r(Unknown, ""), r(Fail, "waived")}))
	require.Equal(t, Unknown, Overall([]Result{r(Unknown, "waived")}), "nothing required was checked")
	require.Equal(t, Pass, Overall([]Result{r(Pass, ""), r(Unknown, "waived")}))
	require.Equal(t, Unknown, Overall([]Result{r("maybe", "")}))
	require.Equal(t, Pass, Overall([]Result{r(Pass, ""), r(NotExercised, "")}), "not exercised fails nothing")
	require.Equal(t, Fail, Overall([]Result{r(NotExercised, ""), r(Fail, "")}))
}

func TestFoldUnexercisedScenarioInvariantIsUnknown(t *testing.T) {
	results := []Result{
		{ID: "I4", Name: "poison fails fast", Verdict: Pass, Reason: "every poison event (3) failed"},
		{ID: "I6", Name: "backoff respected", Verdict: NotExercised, Reason: "the run had no transient failure"},
		{ID: "I7", Name: "bounded attempts", Verdict: NotExercised, Reason: "no event reached the maximum"},
		{ID: "I8", Name: "lease recovery", Verdict: NotExercised, Reason: "no dead owner's claim expired"},
	}
	v, why := Fold(results, nil)
	require.Equal(t, Pass, v, "no scenario claim: not exercised is shown, not folded")
	require.Empty(t, why)

	v, why = Fold(results, []string{"I4", "I6"})
	require.Equal(t, Unknown, v)
	require.Equal(t, "I6 backoff respected, which this scenario exists to exercise, had nothing to check: the run had no transient failure", why)

	v, why = Fold(results, []string{"I6", "I8", "I9"})
	require.Equal(t, Unknown, v)
	require.Contains(t, why, "I6 backoff respected, which this scenario exists to exercise")
	require.Contains(t, why, "; I8 lease recovery, which this scenario exists to exercise, had nothing to check: no dead owner's claim expired")
	require.Contains(t, why, "; I9, which this scenario exists to exercise, has no result")
	require.NotContains(t, why, "I7")

	results[1].Waived = "backoff is not asserted here"
	v, _ = Fold(results, []string{"I6"})
	require.Equal(t, Pass, v, "a waived invariant does not count, exercised or not")

	results = append(results, Result{ID: "I2", Name: "eventually published", Verdict: Fail})
	v, why = Fold(results, []string{"I8"})
	require.Equal(t, Fail, v, "a proven violation wins over anything unexercised")
	require.Equal(t, "violated: I2 eventually published", why)

	results[len(results)-1].Verdict = Unknown
	results[len(results)-1].Reason = "the run did not quiesce"
	_, why = Fold(results, []string{"I8"})
	require.Equal(t, "I2 eventually published could not be decided: the run did not quiesce; I8 lease recovery, which this scenario exists to exercise, had nothing to check: no dead owner's claim expired", why)

	v, why = Fold(nil, []string{"I1"})
	require.Equal(t, Unknown, v)
	require.Equal(t, "no invariant was checked", why)
}

func TestKnownInvariants(t *testing.T) {
	for _, c := range All() {
		require.True(t, Known(c.ID))
	}
	require.True(t, Known("I10"), "the opt-in ordering invariant")
	require.False(t, Known("I11"))
	require.False(t, Known("i1"))
}

func TestWaivedKeepsItsVerdict(t *testing.T) {
	run := loadStored(t, "bad-i2-never-claimed")
	require.Equal(t, Fail, Overall(Evaluate(run)))
	run.Meta.Waived = map[string]string{"I2": "the outage outlasts the retry budget on purpose"}
	results := Evaluate(run)
	require.Equal(t, Fail, results[1].Verdict)
	require.Equal(t, "the outage outlasts the retry budget on purpose", results[1].Waived)
	for _, r := range results {
		if r.ID != "I2" {
			require.Empty(t, r.Waived)
		}
	}
	require.Equal(t, Pass, Overall(results))
}

func TestAllInOrder(t *testing.T) {
	cs := All()
	require.Len(t, cs, 9)
	for i, c := range cs {
		require.Equal(t, fmt.Sprintf("I%d", i+1), c.ID)
		require.NotEmpty(t, c.Name)
		require.NotNil(t, c.Check)
	}
}

func TestMalformedHistoryIsUnknownNotAPanic(t *testing.T) {
	boom := Checker{ID: "I1", Name: "no duplicate job", Check: func(history.Run) Result { panic("bad row") }}
	r := runOne(boom, history.Run{})
	require.Equal(t, Unknown, r.Verdict)
	require.Contains(t, r.Reason, "bad row")
	// An empty run is checked without panicking, and nothing in it passes.
	results := Evaluate(history.Run{})
	for _, r := range results {
		require.Equal(t, NotExercised, r.Verdict, "%s: %s", r.ID, r.Reason)
		require.NotEmpty(t, r.Reason, r.ID)
	}
	v, why := Fold(results, nil)
	require.Equal(t, Unknown, v)
	require.Equal(t, "no required invariant had anything to check", why)
}

func stepsText(steps []Line) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "%s %s %s\n", clock(s.At), s.Source, s.Text)
	}
	return b.String()
}
