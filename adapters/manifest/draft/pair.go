package draft

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
)

// NoJobs is the JobsTable (--jobs-table) that says the outbox has no jobs
// table beside it.
const NoJobs = "none"

// pairGuess is the proposed outbox table and, when one is linked to it, the
// jobs table.
type pairGuess struct {
	outbox tableGuess
	jobs   *tableGuess // nil: an outbox alone
	link   string      // why the outbox's aggregate_id points at the jobs table
	total  int
}

// label names the pair in messages.
func (p pairGuess) label() string {
	if p.jobs == nil {
		return "outbox " + p.outbox.table.Name + " alone"
	}
	return "outbox " + p.outbox.table.Name + " with jobs " + p.jobs.table.Name
}

// choosePair finds the outbox table among tables, and the jobs table beside
// it when the link between them is real (a foreign key, or an aggregate
// column named after the jobs table or its id): every linked pair of
// distinct tables is scored (their columns, their names) and the best
// complete pair wins; without one, the best complete outbox alone wins.
// forceOutbox and forceJobs, when set, name the tables (forceJobs NoJobs:
// none). A tie is an error, as is no complete outbox.
func choosePair(tables map[string]schemaddl.Table, forceOutbox, forceJobs string) (pairGuess, error) {
	names := slices.Sorted(maps.Keys(tables))
	for _, f := range []struct{ flag, name string }{{"--outbox-table", forceOutbox}, {"--jobs-table", forceJobs}} {
		if _, ok := tables[strings.ToLower(f.name)]; f.name != "" && f.name != NoJobs && !ok {
			return pairGuess{}, fmt.Errorf("%s %q: no such table (tables read: %s)", f.flag, f.name, strings.Join(names, ", "))
		}
	}
	var cands []pairGuess
	if forceJobs != NoJobs {
		cands = linkedPairs(tables, names, forceOutbox, forceJobs)
	}
	if len(cands) == 0 && (forceJobs == "" || forceJobs == NoJobs) {
		cands = solos(tables, names, forceOutbox)
	}
	if len(cands) == 0 {
		return pairGuess{}, noOutboxError(tables, names, forceJobs)
	}
	sort.SliceStable(cands, func(i, k int) bool { return cands[i].total > cands[k].total })
	best := cands[0]
	if len(cands) > 1 && cands[1].total == best.total {
		return pairGuess{}, fmt.Errorf("ambiguous tables: %s fits as well as %s (fix: name them with --outbox-table and --jobs-table, --jobs-table %s for an outbox alone)",
			best.label(), cands[1].label(), NoJobs)
	}
	best.outbox.reason = outboxReason(best, cands)
	if best.jobs != nil {
		best.jobs.reason = jobsReason(best, cands)
	}
	return best, nil
}

// linkedPairs scores every pair of distinct tables as outbox and jobs
// table; it keeps the complete pairs whose link is real, or every complete
// pair with the forced jobs table, or the forced pair as it is.
func linkedPairs(tables map[string]schemaddl.Table, names []string, forceOutbox, forceJobs string) []pairGuess {
	forced := forceOutbox != "" && forceJobs != ""
	var out []pairGuess
	for _, j := range names {
		if !matches(forceJobs, j) {
			continue
		}
		jg := guessJobs(tables[j])
		for _, o := range names {
			if o == j || !matches(forceOutbox, o) {
				continue
			}
			og, link := guessOutbox(tables[o], jg)
			complete := len(og.missing) == 0 && len(jg.missing) == 0
			if forced || (complete && (link != "" || forceJobs != "")) {
				jobs := jg
				out = append(out, pairGuess{outbox: og, jobs: &jobs, link: link, total: og.score + jg.score})
			}
		}
	}
	return out
}

// solos scores every table as an outbox alone and keeps the complete ones,
// or the forced one as it is.
func solos(tables map[string]schemaddl.Table, names []string, forceOutbox string) []pairGuess {
	var out []pairGuess
	for _, o := range names {
		if !matches(forceOutbox, o) {
			continue
		}
		g := guessSolo(tables[o])
		if len(g.missing) == 0 || forceOutbox != "" {
			out = append(out, pairGuess{outbox: g, total: g.score})
		}
	}
	return out
}

func matches(force, name string) bool { return force == "" || strings.EqualFold(force, name) }

// guessJobs proposes the jobs table's columns; the primary key is the
// likeliest id.
func guessJobs(t schemaddl.Table) tableGuess {
	g := assign(t, jobsKeys, func(key string, c schemaddl.Column) (int, string) {
		if key == "id" && isPrimaryKey(t, c) {
			return 60, "the table's primary key"
		}
		return 0, ""
	})
	if b, _ := tableNameBonus(t.Name, jobsTableWords); b > 0 {
		g.score += b
	}
	return g
}

// guessOutbox proposes the outbox table's columns, given the jobs table,
// and says why its aggregate_id points at the jobs table ("" when nothing
// links them).
func guessOutbox(t schemaddl.Table, jobs tableGuess) (tableGuess, string) {
	g := assign(t, outboxKeys, func(key string, c schemaddl.Column) (int, string) {
		switch {
		case key == "aggregate_id":
			return linkOf(t, c, jobs)
		case key == "id" && isPrimaryKey(t, c):
			return 60, "the table's primary key"
		}
		return 0, ""
	})
	g.score += outboxNameScore(t.Name)
	link := ""
	if p, ok := g.picks["aggregate_id"]; ok {
		_, link = linkOf(t, t.Columns[strings.ToLower(p.column)], jobs)
	}
	return g, link
}

// guessSolo proposes the columns of an outbox without a jobs table: the
// primary key is the likeliest id, and never the message id (which is the
// row's id by default).
func guessSolo(t schemaddl.Table) tableGuess {
	g := assign(t, soloKeys(), func(key string, c schemaddl.Column) (int, string) {
		switch {
		case key == "id" && isPrimaryKey(t, c):
			return 60, "the table's primary key"
		case key == "message_id" && isPrimaryKey(t, c):
			return -1, ""
		}
		return 0, ""
	})
	g.score += outboxNameScore(t.Name)
	return g
}

// linkOf says whether column c of the outbox t points at the jobs table:
// named like the jobs table's id, named after the jobs table, a foreign key
// to it, or the contract's aggregate_id beside a table named like jobs.
func linkOf(t schemaddl.Table, c schemaddl.Column, jobs tableGuess) (int, string) {
	jobID := jobs.picks["id"].column
	lower := strings.ToLower(c.Name)
	words := nameWords(jobs.table.Name)
	named := len(words) > 0 && (lower == singularOf(strings.ToLower(jobs.table.Name))+"_id" || lower == singularOf(words[len(words)-1])+"_id")
	refs := slices.Contains(lowerAll(t.References), strings.ToLower(jobs.table.Name))
	switch {
	case jobID != "" && lower == strings.ToLower(jobID) && !strings.EqualFold(jobID, "id"):
		return 60, fmt.Sprintf("named like %s.%s, the jobs table's id", jobs.table.Name, jobID)
	case named:
		return 50, fmt.Sprintf("named after the jobs table %s", jobs.table.Name)
	case refs && strings.HasSuffix(lower, "id"):
		return 40, fmt.Sprintf("the table has a FOREIGN KEY to %s", jobs.table.Name)
	case lower == "aggregate_id" && tableHasWord(jobs.table.Name, jobsTableWords):
		return 30, fmt.Sprintf("the contract's aggregate_id, beside %s, a table named like jobs", jobs.table.Name)
	}
	return 0, ""
}

func isPrimaryKey(t schemaddl.Table, c schemaddl.Column) bool {
	return len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name)
}

// outboxNameScore rewards a table named like an outbox and penalises one
// named like a dead-letter or offsets table.
func outboxNameScore(name string) int {
	score, _ := tableNameBonus(name, outboxTableWords)
	if tableHasWord(name, deadTableWords) || tableHasWord(name, offsetsTableWords) {
		score -= 40
	}
	return score
}

func tableHasWord(name string, words []string) bool {
	b, _ := tableNameBonus(name, words)
	return b > 0
}

func singularOf(name string) string {
	switch {
	case strings.HasSuffix(name, "ies"):
		return strings.TrimSuffix(name, "ies") + "y"
	case strings.HasSuffix(name, "s"):
		return strings.TrimSuffix(name, "s")
	}
	return name
}

func lowerAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.ToLower(s)
	}
	return out
}

// outboxReason says why this table was chosen as the outbox: its columns,
// its name, its jobs table or the lack of one, and the runner-up.
func outboxReason(best pairGuess, ranked []pairGuess) string {
	why := "its columns fit the contract's outbox table best"
	if _, nw := tableNameBonus(best.outbox.table.Name, outboxTableWords); nw != "" {
		why += "; " + nw
	}
	if best.jobs == nil {
		why += "; no table is linked to it as its jobs table, so it is an outbox alone"
	}
	for _, p := range ranked[1:] {
		if n := p.outbox.table.Name; n != best.outbox.table.Name {
			return why + "; next best: " + n
		}
	}
	return why
}

// jobsReason says why this table was chosen as the jobs table.
func jobsReason(best pairGuess, ranked []pairGuess) string {
	why := "its columns fit the contract's jobs table best"
	if _, nw := tableNameBonus(best.jobs.table.Name, jobsTableWords); nw != "" {
		why += "; " + nw
	}
	if best.link != "" {
		why += "; the outbox's aggregate id is " + best.link
	}
	for _, p := range ranked[1:] {
		if p.jobs != nil && p.jobs.table.Name != best.jobs.table.Name {
			return why + "; next best: " + p.jobs.table.Name
		}
	}
	return why
}

// noOutboxError says which table came closest to an outbox and what it
// lacks.
func noOutboxError(tables map[string]schemaddl.Table, names []string, forceJobs string) error {
	if len(tables) == 0 {
		return fmt.Errorf("no tables read (fix: give the DDL or database that creates your outbox)")
	}
	var all []tableGuess
	for _, n := range names {
		all = append(all, guessSolo(tables[n]))
	}
	sort.SliceStable(all, func(i, k int) bool {
		if len(all[i].missing) != len(all[k].missing) {
			return len(all[i].missing) < len(all[k].missing)
		}
		return all[i].score > all[k].score
	})
	need := "an outbox table needs a key (an AUTO_INCREMENT integer, or a uuid primary key: CHAR(36), BINARY(16) or UUID) and a payload column (JSON or text)"
	if forceJobs != "" {
		need += "; beside the jobs table " + forceJobs + " also an event type and an aggregate id, and the jobs table an id, a queue and a status"
	}
	return fmt.Errorf("no outbox table found: %s. Closest: %s (missing %s); tables read: %s (fix: name it with --outbox-table to draft a manifest with what is there, or check that the DDL or database is the dispatcher's)",
		need, all[0].table.Name, orNone(all[0].missing), strings.Join(names, ", "))
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "nothing"
	}
	return strings.Join(list, ", ")
}
