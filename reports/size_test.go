package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// bigRun is a 10,000-event run with four instances, a fault every few
// seconds, and far more violations than a page draws.
func bigRun() (history.Run, []check.Result) {
	m := fixtureMeta("contention", 99, "reference", "outboxchaos run --scenario contention --seed 99")
	b := newRunBuilder(m)
	insts := []string{"d1", "d2", "d3", "d4"}
	for i, inst := range insts {
		b.process(inst, "start", b.at(float64(i)), 6000+i, "")
	}
	const events = 10_000
	for i := int64(1); i <= events; i++ {
		produced := b.at(100 + 2*float64(i))
		b.produce(i, history.KindValid, "ai.job.enqueue", queueOf(i), produced)
		b.happyPath(i, insts[i%4], produced.Add(time.Duration(5+i%40)*time.Millisecond), 0)
	}
	for k := 0; k < 40; k++ {
		start := b.at(500 + float64(k)*500)
		b.fault("latency", fmt.Sprintf("mysql/%s", insts[k%4]), start, start.Add(200*time.Millisecond), map[string]string{"latency": "50ms"})
		b.process(insts[k%4], "stop", start, 0, "")
		b.process(insts[k%4], "cont", start.Add(150*time.Millisecond), 0, "")
	}
	b.run.Meta.Healed = b.at(20_400)
	b.run.Meta.Ended, b.run.Meta.Quiesced = b.at(21_000), true
	results := allPass(nil)
	var vs []check.Violation
	for i := int64(1); i <= 600; i++ {
		v := check.Violation{EventID: i * 13, JobID: jobName(i * 13), Instances: []string{"d1", "d2"},
			Summary: fmt.Sprintf("Job %s was created twice.", jobName(i*13))}
		for s := 0; s < 150; s++ {
			v.Steps = append(v.Steps, check.Line{At: b.at(float64(s)), Source: "mysql", Text: fmt.Sprintf("step %d of a long proof", s)})
		}
		vs = append(vs, v)
	}
	results[0] = failed("I1", "", vs...)
	return b.finish(), results
}

func TestLargeRunStaysLight(t *testing.T) {
	run, checks := bigRun()
	require.Len(t, run.Events, 10_000)
	dir := t.TempDir()
	start := time.Now()
	require.NoError(t, WriteRun(dir, run, checks))
	elapsed := time.Since(start)
	st, err := os.Stat(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	t.Logf("10,000 events, 600 violations: index.html %d bytes in %s", st.Size(), elapsed)
	require.Less(t, st.Size(), int64(2<<20), "index.html stays under 2 MB")
	page := readFile(t, filepath.Join(dir, FileHTML))
	requireIn(t, page, "500 more I1 violations are in results.json.")
	requireIn(t, page, "50 more steps are in results.json.")  // drawn: 100 steps listed
	requireIn(t, page, "150 more steps are in results.json.") // past the drawing cap
}
