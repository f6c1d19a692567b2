package check

import (
	"sort"
	"strconv"
	"strings"
)

// Finding is one cause, as far as the history shows it: the violations of
// several invariants that rest on the same events, told once. Reports lead
// with findings; each invariant's violations stay in its Result.
type Finding struct {
	// Headline is one line in plain words: how many events (or jobs), the
	// summary of the lead violation, and the contract rule when one is named.
	Headline string `json:"headline"`
	// Invariants are the ids the finding breaks, in the invariants' order.
	Invariants []string `json:"invariants"`
	// Rules are the contract rules its violations name, first-ranked first.
	Rules     []string `json:"rules,omitempty"`
	Events    []int64  `json:"events,omitempty"`    // ascending
	Jobs      []string `json:"jobs,omitempty"`      // ascending
	Instances []string `json:"instances,omitempty"` // ascending
	// Violations point into the results; the first is the lead, the one the
	// headline tells.
	Violations []ViolationRef `json:"violations"`
}

// ViolationRef names one violation: Results[invariant].Violations[Index].
type ViolationRef struct {
	Invariant string `json:"invariant"`
	Index     int    `json:"index"`
}

// specificity ranks invariants for the lead of a finding, causes before
// symptoms: two owners at once (I5) explains a second job (I1) or an
// overwrite (I9); a dead owner's claim never recovered (I8) explains an
// event, poison or not, left processing (I4, I2); a poison event's handling
// (I4) and the retry policy (I6, I7) name what the dispatcher decided; and
// an inconsistent (I3) or unpublished (I2) end state is what most other
// breaches leave behind.
var specificity = map[string]int{"I5": 0, "I1": 1, "I9": 2, "I8": 3, "I4": 4, "I6": 5, "I7": 6, "I3": 7, "I2": 8}

func rankOf(id string) int {
	if r, ok := specificity[id]; ok {
		return r
	}
	return len(specificity)
}

// Findings groups the violations of the failed, required (not waived)
// results into findings. It is a pure function of results, and its order is
// deterministic:
//
//  1. Violations that share an event id or a job id are one group, across
//     invariants and transitively (event 7's I2 and I3 violations, and the I1
//     violation of its job).
//  2. Groups that break the same set of invariants and name the same rules
//     are one finding: 17 events each failing I2, I3 and I7 the same way are
//     one cause, not 17.
//  3. Within a finding, violations go by invariant specificity (see
//     specificity), then event id, job id and their place in the result; the
//     first is the lead.
//  4. Findings go by size (events, else jobs, else violations) descending,
//     then by the lead's specificity, then by the lead's event and job id.
//
// Waived results are left out: their scenario expects them. Only the
// violations the checkers kept (MaxViolations per invariant) are grouped.
func Findings(results []Result) []Finding {
	nodes := findingNodes(results)
	groups := groupByShared(nodes)
	merged := mergeBySignature(nodes, groups)
	out := make([]Finding, 0, len(merged))
	for _, members := range merged {
		out = append(out, newFinding(nodes, members))
	}
	sort.SliceStable(out, func(i, j int) bool { return findingLess(out[i], out[j]) })
	return out
}

// findingNode is one violation with its place.
type findingNode struct {
	ref ViolationRef
	v   Violation
}

func findingNodes(results []Result) []findingNode {
	var nodes []findingNode
	for _, r := range results {
		if r.Waived != "" || r.Verdict != Fail {
			continue
		}
		for j, v := range r.Violations {
			nodes = append(nodes, findingNode{ref: ViolationRef{Invariant: r.ID, Index: j}, v: v})
		}
	}
	return nodes
}

// groupByShared joins nodes that share an event or a job (union-find) and
// returns each node's group root.
func groupByShared(nodes []findingNode) []int {
	parent := make([]int, len(nodes))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	for i, n := range nodes {
		for _, k := range sharedKeys(n.v) {
			if j, ok := owner[k]; ok {
				a, b := find(i), find(j)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
				continue
			}
			owner[k] = i
		}
	}
	roots := make([]int, len(nodes))
	for i := range nodes {
		roots[i] = find(i)
	}
	return roots
}

func sharedKeys(v Violation) []string {
	var keys []string
	if v.EventID != 0 {
		keys = append(keys, "event:"+strconv.FormatInt(v.EventID, 10))
	}
	if v.JobID != "" {
		keys = append(keys, "job:"+v.JobID)
	}
	return keys
}

// mergeBySignature folds groups with the same invariants and rules into
// one, in the order their first node appears.
func mergeBySignature(nodes []findingNode, roots []int) [][]int {
	members := map[int][]int{}
	var order []int
	for i, r := range roots {
		if _, ok := members[r]; !ok {
			order = append(order, r)
		}
		members[r] = append(members[r], i)
	}
	bySig := map[string]int{}
	var out [][]int
	for _, r := range order {
		sig := signature(nodes, members[r])
		if k, ok := bySig[sig]; ok {
			out[k] = append(out[k], members[r]...)
			continue
		}
		bySig[sig] = len(out)
		out = append(out, members[r])
	}
	return out
}

func signature(nodes []findingNode, members []int) string {
	inv, rules := map[string]bool{}, map[string]bool{}
	for _, i := range members {
		inv[nodes[i].ref.Invariant] = true
		if nodes[i].v.Rule != "" {
			rules[nodes[i].v.Rule] = true
		}
	}
	return strings.Join(sortedSet(inv), ",") + "\x00" + strings.Join(sortedSet(rules), "\x00")
}

func newFinding(nodes []findingNode, members []int) Finding {
	ms := append([]int(nil), members...)
	sort.SliceStable(ms, func(a, b int) bool { return nodeLess(nodes[ms[a]], nodes[ms[b]]) })
	var f Finding
	inv, events, jobs, inst, rules := map[string]bool{}, map[int64]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, i := range ms {
		n := nodes[i]
		f.Violations = append(f.Violations, n.ref)
		inv[n.ref.Invariant] = true
		if n.v.EventID != 0 {
			events[n.v.EventID] = true
		}
		if n.v.JobID != "" {
			jobs[n.v.JobID] = true
		}
		for _, s := range n.v.Instances {
			if s != "" {
				inst[s] = true
			}
		}
		if n.v.Rule != "" && !rules[n.v.Rule] {
			rules[n.v.Rule] = true
			f.Rules = append(f.Rules, n.v.Rule)
		}
	}
	f.Invariants = sortedSet(inv)
	sort.Slice(f.Invariants, func(a, b int) bool { return invariantLess(f.Invariants[a], f.Invariants[b]) })
	for e := range events {
		f.Events = append(f.Events, e)
	}
	sort.Slice(f.Events, func(a, b int) bool { return f.Events[a] < f.Events[b] })
	f.Jobs = sortedSet(jobs)
	f.Instances = sortedSet(inst)
	f.Headline = headlineOf(f, nodes[ms[0]].v)
	return f
}

// headlineOf tells the finding in one line: "17 events: <the lead's
// summary>; likewise 16 other events; <the rule>."
func headlineOf(f Finding, lead Violation) string {
	n, one, many := f.size()
	h := count(n, one, many) + ": " + strings.TrimRight(strings.TrimSpace(lead.Summary), ".")
	if n > 1 {
		h += "; likewise " + count(n-1, "other "+one, "other "+many)
	}
	rule := lead.Rule
	if rule == "" && len(f.Rules) > 0 {
		rule = f.Rules[0]
	}
	if rule != "" {
		h += "; " + strings.TrimRight(strings.TrimSpace(rule), ".")
	}
	return h + "."
}

// size is what the finding counts: its events, else its jobs, else its
// violations.
func (f Finding) size() (int, string, string) {
	switch {
	case len(f.Events) > 0:
		return len(f.Events), "event", "events"
	case len(f.Jobs) > 0:
		return len(f.Jobs), "job", "jobs"
	}
	return len(f.Violations), "violation", "violations"
}

func nodeLess(a, b findingNode) bool {
	if ra, rb := rankOf(a.ref.Invariant), rankOf(b.ref.Invariant); ra != rb {
		return ra < rb
	}
	if a.ref.Invariant != b.ref.Invariant {
		return invariantLess(a.ref.Invariant, b.ref.Invariant)
	}
	if a.v.EventID != b.v.EventID {
		return a.v.EventID < b.v.EventID
	}
	if a.v.JobID != b.v.JobID {
		return a.v.JobID < b.v.JobID
	}
	return a.ref.Index < b.ref.Index
}

func findingLess(a, b Finding) bool {
	na, _, _ := a.size()
	nb, _, _ := b.size()
	if na != nb {
		return na > nb
	}
	la, lb := a.Violations[0].Invariant, b.Violations[0].Invariant
	if ra, rb := rankOf(la), rankOf(lb); ra != rb {
		return ra < rb
	}
	if fa, fb := firstEvent(a), firstEvent(b); fa != fb {
		return fa < fb
	}
	if ja, jb := firstJob(a), firstJob(b); ja != jb {
		return ja < jb
	}
	return invariantLess(la, lb)
}

func firstEvent(f Finding) int64 {
	if len(f.Events) == 0 {
		return 0
	}
	return f.Events[0]
}

func firstJob(f Finding) string {
	if len(f.Jobs) == 0 {
		return ""
	}
	return f.Jobs[0]
}

// invariantLess orders ids I1 < I2 < ... < I9 < I10, other strings after.
func invariantLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "I"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "I"))
	if ea == nil && eb == nil && na != nb {
		return na < nb
	}
	if (ea == nil) != (eb == nil) {
		return ea == nil
	}
	return a < b
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil
	}
	return out
}
