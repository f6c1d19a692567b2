package reports

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

func TestEmptyRunIsUnknown(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, history.Run{}, nil))
	page := readFile(t, filepath.Join(dir, FileHTML))
	requireIn(t, page, `<div class="v">UNKNOWN</div>`)
	requireIn(t, page, "No checker result was recorded for this run.")
	requireIn(t, page, "no outbox transitions were recorded")
	res, err := verdict.Read(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, check.Unknown, res.Verdict)
	doc := parseJUnit(t, filepath.Join(dir, FileJUnit))
	require.Len(t, doc.Suites, 1)
	require.Empty(t, doc.Suites[0].Cases)
}

// TestLongViolationIsCapped: a poison event retried 40 times, an unhealed
// fault, and a violation naming nothing the history knows.
func TestLongViolationIsCapped(t *testing.T) {
	m := fixtureMeta("poison", 5, "reference", "outboxchaos run --scenario poison --seed 5")
	b := newRunBuilder(m)
	b.process("d1", "start", b.at(0), 100, "")
	b.produce(1, history.KindUnknownType, "ai.job.bogus", "ai-default", b.at(10))
	var steps []check.Line
	tok, err := "", `unknown event type "ai.job.bogus"`
	for a := 1; a <= 40; a++ {
		at := b.at(20 + float64(a)*30)
		old := ""
		if a > 1 {
			old = err
		}
		tok = b.claim(1, "d1", a, at, history.StatusPending, "")
		b.retry(1, "d1", tok, a, at.Add(time.Millisecond), err, 10*time.Millisecond, old)
		steps = append(steps, check.Line{At: at, Source: "mysql", Text: "retry"})
	}
	b.fault("blackhole", "redis", b.at(400), time.Time{}, nil)
	b.run.Meta.Ended = b.at(2000)
	run := b.finish()
	results := allPass(nil)
	results[3] = failed("I4", "",
		check.Violation{EventID: 1, JobID: jobName(1), Instances: []string{"d1"}, Summary: "Poison event 1 was retried 40 times.", Steps: steps},
		check.Violation{EventID: 999, Summary: "Event 999 is not in the history."})
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, results))
	page := readFile(t, filepath.Join(dir, FileHTML))
	requireIn(t, page, "items in the middle are not drawn")
	require.Equal(t, 1, strings.Count(page, `class="ellipsis"`))
	require.Equal(t, maxSwimCols, strings.Count(page, `class="colline"`), "columns are capped")
	requireIn(t, page, "blackhole redis (never healed)")
	requireIn(t, page, "the history holds nothing about this event or job")
}

func TestBuildDoesNotModifyItsInput(t *testing.T) {
	run, checks := loadStored(t, "fail-several")
	run.Meta.Command = "x --dsn root:s3cret@tcp(h:1)/db"
	checks[0].Violations[0].Steps[0].Text = "redis://:s3cret@h:1/0"
	before := string(marshal(t, checks)) + string(marshal(t, run.Meta))
	_ = Build(run, checks)
	require.NoError(t, WriteRun(t.TempDir(), run, checks))
	require.Equal(t, before, string(marshal(t, checks))+string(marshal(t, run.Meta)))
}
