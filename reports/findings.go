package reports

import (
	"strconv"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/check"
)

// findingView is one finding at the top of the page: its headline, the
// invariants it breaks (linked to their sections), what it is about, and a
// link to each of its violations.
type findingView struct {
	Headline   string
	Invariants []linkView
	Rules      []string
	Facts      []kv
	Violations []linkView
	Omitted    int // violations not linked (past maxFindingItems)
}

type linkView struct{ Text, Href string }

// findingViews shows the first maxFindingsShow findings. Links point at the
// anchors violated() gives: inv-<i> per invariant, inv-<i>-<j> per violation
// shown.
func findingViews(fs []check.Finding, rs []check.Result) ([]findingView, int) {
	pos := make(map[string]int, len(rs))
	for i, r := range rs {
		pos[r.ID] = i
	}
	shown, omitted := capSlice(fs, maxFindingsShow)
	out := make([]findingView, 0, len(shown))
	for _, f := range shown {
		out = append(out, newFindingView(f, rs, pos))
	}
	return out, omitted
}

func newFindingView(f check.Finding, rs []check.Result, pos map[string]int) findingView {
	v := findingView{Headline: f.Headline, Rules: f.Rules}
	for _, id := range f.Invariants {
		l := linkView{Text: id}
		if i, ok := pos[id]; ok {
			l.Text, l.Href = id+" "+rs[i].Name, "#inv-"+strconv.Itoa(i)
		}
		v.Invariants = append(v.Invariants, l)
	}
	if len(f.Events) > 0 {
		ids := make([]string, len(f.Events))
		for i, e := range f.Events {
			ids[i] = strconv.FormatInt(e, 10)
		}
		v.Facts = append(v.Facts, kv{plural(len(ids), "event", "events"), listCapped(ids)})
	}
	switch {
	case len(f.Jobs) == 0:
	case len(f.Events) > 0 && len(f.Jobs) > maxFindingJobs:
		// The events already say what it is about; the ids are in results.json.
		v.Facts = append(v.Facts, kv{"jobs", strconv.Itoa(len(f.Jobs)) + " (listed in results.json)"})
	default:
		v.Facts = append(v.Facts, kv{plural(len(f.Jobs), "job", "jobs"), listCapped(f.Jobs)})
	}
	if len(f.Instances) > 0 {
		v.Facts = append(v.Facts, kv{"instances", strings.Join(f.Instances, ", ")})
	}
	refs, omitted := capSlice(f.Violations, maxFindingItems)
	v.Omitted = omitted
	for _, ref := range refs {
		v.Violations = append(v.Violations, violationLink(ref, rs, pos))
	}
	return v
}

// violationLink names a violation by invariant and event (or job); it links
// only when the page lists that violation.
func violationLink(ref check.ViolationRef, rs []check.Result, pos map[string]int) linkView {
	l := linkView{Text: ref.Invariant}
	i, ok := pos[ref.Invariant]
	if !ok || ref.Index < 0 || ref.Index >= len(rs[i].Violations) {
		return l
	}
	viol := rs[i].Violations[ref.Index]
	switch {
	case viol.EventID != 0:
		l.Text += " event " + strconv.FormatInt(viol.EventID, 10)
	case viol.JobID != "":
		l.Text += " job " + viol.JobID
	default:
		l.Text += " #" + strconv.Itoa(ref.Index+1)
	}
	if ref.Index < maxViolationsShow {
		l.Href = "#inv-" + strconv.Itoa(i) + "-" + strconv.Itoa(ref.Index)
	}
	return l
}

func listCapped(items []string) string {
	shown, omitted := capSlice(items, maxFindingItems)
	s := strings.Join(shown, ", ")
	if omitted > 0 {
		s += " and " + strconv.Itoa(omitted) + " more"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
