package draft

import (
	"fmt"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
)

// The columns the states read beside the outbox's own keys: a failed-at
// column of the outbox, the offsets table's columns, a dead-letter table's
// link to the outbox row.
var (
	failedSpec = keySpec{"failed_at", false, kindTime, "when the message failed for good",
		[]string{"abandoned_at", "failed_at", "dead_at", "dead_lettered_at", "given_up_at", "gave_up_at", "discarded_at", "rejected_at", "poisoned_at"},
		[]string{"abandoned", "failed", "dead", "discarded", "rejected", "poison", "poisoned", "gave", "given"}}
	offsetsKeys = []keySpec{
		{"offset_column", true, kindInt, "the last outbox id the group has passed",
			[]string{"offset_acked", "acked_offset", "last_offset", "offset", "last_id", "last_seen_id", "last_processed_id", "last_event_id", "position", "cursor", "watermark", "high_watermark", "checkpoint"},
			[]string{"offset", "cursor", "position", "acked", "watermark", "checkpoint"}},
		{"group_column", false, kindText, "the consumer group whose offset it is",
			[]string{"consumer_group", "group_name", "group", "consumer", "consumer_name", "consumer_id", "group_id", "subscriber", "subscription", "subscription_name", "relay", "relay_name"},
			[]string{"group", "consumer", "subscriber", "subscription", "relay"}},
	}
	errorWords = []string{"error", "reason", "failure", "cause"}
)

// findFailedColumn finds the outbox's time column that says a message
// failed for good, among the columns no key took.
func findFailedColumn(o tableGuess) (string, string) {
	used := map[string]bool{}
	for _, p := range o.picks {
		used[strings.ToLower(p.column)] = true
	}
	best, bestScore, bestWhy := "", 0, ""
	for _, name := range o.table.Order {
		if used[strings.ToLower(name)] {
			continue
		}
		if s, why := score(failedSpec, o.table.Columns[strings.ToLower(name)]); s > bestScore {
			best, bestScore, bestWhy = name, s, why
		}
	}
	return best, bestWhy
}

// findOffsets finds the offsets table of a cursor outbox among others: an
// integer column named like an offset, beside a consumer group's column,
// in a table named like offsets (or with a column that is exactly an
// offset's name).
func findOffsets(others []schemaddl.Table) *cursorGuess {
	type cand struct {
		g     tableGuess
		score int
	}
	var cands []cand
	for _, t := range others {
		g := assign(t, offsetsKeys, func(string, schemaddl.Column) (int, string) { return 0, "" })
		col, ok := g.picks["offset_column"]
		named := tableHasWord(t.Name, offsetsTableWords)
		if !ok || (!named && col.score < 90) {
			continue
		}
		s := g.score
		if named {
			s += 30
		}
		cands = append(cands, cand{g, s})
	}
	if len(cands) == 0 {
		return nil
	}
	sort.SliceStable(cands, func(i, k int) bool { return cands[i].score > cands[k].score })
	g := cands[0].g
	c := &cursorGuess{table: g.table.Name, column: g.picks["offset_column"].column,
		reason: fmt.Sprintf("GUESS: no status column and no column that says published, and %s.%s looks like a cursor: %s", g.table.Name, g.picks["offset_column"].column, g.picks["offset_column"].reason)}
	if len(cands) > 1 {
		c.reason += "; next best: " + cands[1].g.table.Name
	}
	if p, ok := g.picks["group_column"]; ok {
		c.groupColumn, c.groupReason = p.column, "EDIT: the consumer group your relay writes in "+p.column+" (its configuration names it)"
	}
	return c
}

// findDeadLetter finds a table that receives failed rows: named like a
// dead-letter table, or holding an error and a failed-at column, with a
// column of the outbox id's type that links to the row. It returns the
// table, and its linking column and the reason.
func findDeadLetter(others []schemaddl.Table, o tableGuess) (schemaddl.Table, [2]string) {
	id := o.table.Columns[strings.ToLower(o.picks["id"].column)]
	singular := singularOf(strings.ToLower(o.table.Name))
	spec := keySpec{"row_id", true, kindAny, "the outbox row's id",
		[]string{"outbox_id", singular + "_id", "message_id", "event_id", "original_id", "source_id", "msg_id", "id"},
		[]string{"outbox", "message", "event", "original", "source", "msg"}}
	var best schemaddl.Table
	var bestWhy [2]string
	bestScore := 0
	for _, t := range others {
		named := tableHasWord(t.Name, deadTableWords)
		if !named && !(hasWordColumn(t, errorWords) && hasFailedAt(t)) {
			continue
		}
		g := assign(t, []keySpec{spec}, func(_ string, c schemaddl.Column) (int, string) {
			if !sameKind(c, id) {
				return -1, ""
			}
			return 0, ""
		})
		p, ok := g.picks["row_id"]
		if !ok || p.score <= bestScore {
			continue
		}
		evidence := "its name says dead letter"
		if !named {
			evidence = "it holds an error and a failed-at column"
		}
		best, bestScore = t, p.score
		bestWhy = [2]string{p.column, fmt.Sprintf("no column of %s says it failed, and %s looks like its dead-letter table (%s; %s holds the row's id: %s)", o.table.Name, t.Name, evidence, p.column, p.reason)}
	}
	return best, bestWhy
}

func hasWordColumn(t schemaddl.Table, words []string) bool {
	for _, name := range t.Order {
		for _, w := range nameWords(name) {
			for _, want := range words {
				if w == want {
					return true
				}
			}
		}
	}
	return false
}

func hasFailedAt(t schemaddl.Table) bool {
	for _, name := range t.Order {
		if s, _ := score(failedSpec, t.Columns[strings.ToLower(name)]); s > 0 {
			return true
		}
	}
	return false
}

// sameKind: both integers, both uuids or text, or both binary.
func sameKind(a, b schemaddl.Column) bool {
	switch {
	case integerTypes[a.Type] || integerTypes[b.Type]:
		return integerTypes[a.Type] && integerTypes[b.Type]
	case a.Type == "binary" || a.Type == "varbinary" || b.Type == "binary" || b.Type == "varbinary":
		return (a.Type == "binary" || a.Type == "varbinary") && (b.Type == "binary" || b.Type == "varbinary")
	}
	return (isText(a) || a.Type == "uuid") && (isText(b) || b.Type == "uuid")
}
