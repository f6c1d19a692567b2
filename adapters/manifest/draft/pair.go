package draft

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
)

// pairGuess is the proposed outbox and jobs tables.
type pairGuess struct {
	outbox, jobs tableGuess
	total        int
}

// choosePair finds the outbox and jobs tables among tables: every pair of
// distinct tables is scored (its columns, its names, the outbox's link to
// the jobs table) and the best complete pair wins. forceOutbox and
// forceJobs, when set, name the tables. A tie between two different pairs
// is an error, as is no complete pair.
func choosePair(tables map[string]schemaddl.Table, forceOutbox, forceJobs string) (pairGuess, error) {
	names := slices.Sorted(maps.Keys(tables))
	for _, f := range []struct{ flag, name string }{{"--outbox-table", forceOutbox}, {"--jobs-table", forceJobs}} {
		if _, ok := tables[strings.ToLower(f.name)]; f.name != "" && !ok {
			return pairGuess{}, fmt.Errorf("%s %q: no such table (tables read: %s)", f.flag, f.name, strings.Join(names, ", "))
		}
	}
	jobs := map[string]tableGuess{}
	for _, n := range names {
		jobs[n] = guessJobs(tables[n])
	}
	var pairs []pairGuess
	for _, o := range names {
		for _, j := range names {
			if o == j || !matches(forceOutbox, o) || !matches(forceJobs, j) {
				continue
			}
			og := guessOutbox(tables[o], jobs[j])
			pairs = append(pairs, pairGuess{outbox: og, jobs: jobs[j], total: og.score + jobs[j].score})
		}
	}
	forced := forceOutbox != "" && forceJobs != ""
	var complete []pairGuess
	for _, p := range pairs {
		if forced || (len(p.outbox.missing) == 0 && len(p.jobs.missing) == 0) {
			complete = append(complete, p)
		}
	}
	if len(complete) == 0 {
		return pairGuess{}, noPairError(tables, names, pairs)
	}
	sort.SliceStable(complete, func(i, k int) bool { return complete[i].total > complete[k].total })
	best := complete[0]
	if len(complete) > 1 && complete[1].total == best.total {
		second := complete[1]
		return pairGuess{}, fmt.Errorf("ambiguous tables: outbox %s with jobs %s fits as well as outbox %s with jobs %s (fix: name them with --outbox-table and --jobs-table)",
			best.outbox.table.Name, best.jobs.table.Name, second.outbox.table.Name, second.jobs.table.Name)
	}
	best.outbox.reason = pairReason(best.outbox, complete, func(p pairGuess) string { return p.outbox.table.Name }, "outbox")
	best.jobs.reason = pairReason(best.jobs, complete, func(p pairGuess) string { return p.jobs.table.Name }, "jobs")
	return best, nil
}

func matches(force, name string) bool { return force == "" || strings.EqualFold(force, name) }

// guessJobs proposes the jobs table's columns; the primary key is the
// likeliest id.
func guessJobs(t schemaddl.Table) tableGuess {
	g := assign(t, jobsKeys, func(key string, c schemaddl.Column) (int, string) {
		if key == "id" && len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) {
			return 60, "the table's primary key"
		}
		return 0, ""
	})
	if b, _ := tableNameBonus(t.Name, jobsTableWords); b > 0 {
		g.score += b
	}
	return g
}

// guessOutbox proposes the outbox table's columns, given the jobs table:
// the aggregate id is likeliest the column named like the jobs' id, or the
// one whose foreign key references the jobs table.
func guessOutbox(t schemaddl.Table, jobs tableGuess) tableGuess {
	jobID := jobs.picks["id"].column
	refs := slices.Contains(lowerAll(t.References), strings.ToLower(jobs.table.Name))
	singular := singularOf(strings.ToLower(jobs.table.Name))
	g := assign(t, outboxKeys, func(key string, c schemaddl.Column) (int, string) {
		if key != "aggregate_id" {
			return 0, ""
		}
		lower := strings.ToLower(c.Name)
		switch {
		case jobID != "" && lower == strings.ToLower(jobID) && !strings.EqualFold(jobID, "id"):
			return 60, fmt.Sprintf("named like %s.%s, the jobs table's id", jobs.table.Name, jobID)
		case lower == singular+"_id":
			return 50, fmt.Sprintf("named after the jobs table %s", jobs.table.Name)
		case refs && strings.HasSuffix(lower, "id"):
			return 40, fmt.Sprintf("the table has a FOREIGN KEY to %s", jobs.table.Name)
		}
		return 0, ""
	})
	if b, _ := tableNameBonus(t.Name, outboxTableWords); b > 0 {
		g.score += b
	}
	return g
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

// pairReason says why this table was chosen for its role: its name, and
// the runner-up among the other tables.
func pairReason(g tableGuess, ranked []pairGuess, name func(pairGuess) string, role string) string {
	words := outboxTableWords
	if role == "jobs" {
		words = jobsTableWords
	}
	why := fmt.Sprintf("its columns fit the contract's %s table best", role)
	if _, nw := tableNameBonus(g.table.Name, words); nw != "" {
		why += "; " + nw
	}
	for _, p := range ranked[1:] {
		if n := name(p); n != g.table.Name {
			return why + fmt.Sprintf("; next best: %s", n)
		}
	}
	return why
}

// noPairError says which tables came closest and what they lack.
func noPairError(tables map[string]schemaddl.Table, names []string, pairs []pairGuess) error {
	if len(tables) < 2 {
		return fmt.Errorf("found %d table(s) (%s); the contract needs two, an outbox and a jobs table (fix: give the DDL or database that creates both)",
			len(tables), strings.Join(names, ", "))
	}
	lacking := func(p pairGuess) int { return len(p.outbox.missing) + len(p.jobs.missing) }
	sort.SliceStable(pairs, func(i, k int) bool {
		if lacking(pairs[i]) != lacking(pairs[k]) {
			return lacking(pairs[i]) < lacking(pairs[k])
		}
		return pairs[i].total > pairs[k].total
	})
	if len(pairs) == 0 {
		return fmt.Errorf("no pair of tables to choose from (tables read: %s)", strings.Join(names, ", "))
	}
	p := pairs[0]
	return fmt.Errorf("no outbox and jobs tables found: an outbox needs an AUTO_INCREMENT integer id, an event type, an aggregate id, a payload and a status; a jobs table an id, a queue and a status. Closest: outbox %s (missing %s), jobs %s (missing %s); tables read: %s (fix: name them with --outbox-table and --jobs-table to draft a manifest with what is there, or check that the DDL or database is the dispatcher's)",
		p.outbox.table.Name, orNone(p.outbox.missing), p.jobs.table.Name, orNone(p.jobs.missing), strings.Join(names, ", "))
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "nothing"
	}
	return strings.Join(list, ", ")
}
