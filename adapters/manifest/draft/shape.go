package draft

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
)

// stateLine is one entry of the manifest's states: its key, its YAML value
// and the reason for it.
type stateLine struct {
	key, value, reason string
	sql                string // the predicate, for a predicate's line
}

// shapeGuess is where a message is for an outbox without a status column
// (package schema's States): one line per state found, the comments on the
// states not found, and the other tables the states name.
type shapeGuess struct {
	lines  []stateLine
	notes  []string
	side   []schemaddl.Table // the offsets and dead-letter tables, for the schema file
	cursor *cursorGuess      // the offsets table, whose group the data may tell
}

// cursorGuess is the offsets table of a cursor outbox.
type cursorGuess struct {
	table, column, groupColumn, group string
	reason, groupReason               string
}

// guessShape proposes the states of an outbox without a status column
// (nil for one with a status column, which the status map describes):
// published from a published-at column, else a cursor in an offsets table
// beside an append-only outbox, else the row's deletion; failed from a failed-at column, else a
// dead-letter table; claimed from the lease column.
func guessShape(pair pairGuess, tables map[string]schemaddl.Table, store string) *shapeGuess {
	o := pair.outbox
	if _, ok := o.picks["status"]; ok {
		return nil
	}
	sh := &shapeGuess{}
	others := otherTables(tables, pair)
	sh.published(o, others, store)
	sh.failed(o, others, store)
	sh.claimed(o, store)
	return sh
}

// otherTables are the tables that are neither the outbox nor the jobs table.
func otherTables(tables map[string]schemaddl.Table, pair pairGuess) []schemaddl.Table {
	var out []schemaddl.Table
	for _, n := range sortedNames(tables) {
		t := tables[n]
		if strings.EqualFold(t.Name, pair.outbox.table.Name) || (pair.jobs != nil && strings.EqualFold(t.Name, pair.jobs.table.Name)) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func (sh *shapeGuess) add(key, value, reason string) {
	sh.lines = append(sh.lines, stateLine{key: key, value: value, reason: reason})
}

// addPredicate adds a state whose source is a SQL predicate over the row.
func (sh *shapeGuess) addPredicate(key, pred, reason string) {
	sh.lines = append(sh.lines, stateLine{key: key, value: q(pred), reason: reason, sql: pred})
}

func (sh *shapeGuess) published(o tableGuess, others []schemaddl.Table, store string) {
	if p, ok := o.picks["published_at"]; ok {
		sh.addPredicate("published", predicate(store, p.column, "IS NOT NULL"),
			fmt.Sprintf("GUESS: no status column, and %s is set once the row is published (%s)", p.column, p.reason))
		return
	}
	id := o.table.Columns[strings.ToLower(o.picks["id"].column)]
	if c := findOffsets(others); c != nil && id.AutoIncrement && appendOnly(o) {
		sh.cursor = c
		sh.side = append(sh.side, tableNamed(others, c.table))
		return
	}
	sh.add("deleted", q("published"), "GUESS: no status column, no column that says published, and no offsets table beside an append-only table: the relay deletes a row once it is published (if it keeps its rows, name what says one is published instead)")
}

// appendOnly: the outbox has no column a relay writes after the insert
// (a claim, a lease, an attempt count, a backoff, an error), so only a
// cursor elsewhere can say how far it got.
func appendOnly(o tableGuess) bool {
	for _, k := range []string{"locked_by", "lock_token", "locked_until", "attempts", "available_at", "last_error"} {
		if _, ok := o.picks[k]; ok {
			return false
		}
	}
	return true
}

func (sh *shapeGuess) failed(o tableGuess, others []schemaddl.Table, store string) {
	if col, why := findFailedColumn(o); col != "" {
		sh.addPredicate("failed", predicate(store, col, "IS NOT NULL"), "GUESS: "+col+" is set once the message has failed for good ("+why+")")
		return
	}
	if dl, why := findDeadLetter(others, o); dl.Name != "" && sh.deletes() {
		sh.add("dead_letter", fmt.Sprintf("{table: %s, id: %s}", q(dl.Name), q(why[0])), "GUESS: "+why[1])
		sh.side = append(sh.side, dl)
		return
	}
	sh.notes = append(sh.notes, "failed: none found (no failed_at-like column, and no dead-letter table beside a relay that deletes its rows): the outbox then has no failed state; add failed: or dead_letter: if it has one")
}

// deletes: the relay deletes a row once it is published.
func (sh *shapeGuess) deletes() bool {
	for _, l := range sh.lines {
		if l.key == "deleted" {
			return true
		}
	}
	return false
}

func (sh *shapeGuess) claimed(o tableGuess, store string) {
	if p, ok := o.picks["locked_until"]; ok {
		now := "NOW(6)"
		if store == storePostgres {
			now = "clock_timestamp()"
		}
		sh.addPredicate("claimed", predicate(store, p.column, "> "+now), "GUESS: a relay holds the row while its lease in "+p.column+" has not ended, on the database clock")
		return
	}
	started, finished := intColumn(o.table, "started_attempts"), intColumn(o.table, "finished_attempts")
	if started != "" && finished != "" {
		sh.addPredicate("claimed", ident(store, started)+" > "+ident(store, finished), "GUESS: an attempt started and not finished holds the row")
		return
	}
	sh.notes = append(sh.notes, "claimed: none found (no lease column): the outbox then has no claims; add claimed: if a relay holds rows")
}

// intColumn returns the integer column's name, or "".
func intColumn(t schemaddl.Table, name string) string {
	c, ok := t.Columns[name]
	if !ok || !integerTypes[c.Type] {
		return ""
	}
	return c.Name
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// ident writes a column name for a predicate, quoted when it must be.
func ident(store, name string) string {
	switch {
	case plainIdent.MatchString(name):
		return name
	case store == storePostgres:
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func predicate(store, column, rest string) string { return ident(store, column) + " " + rest }

func tableNamed(tables []schemaddl.Table, name string) schemaddl.Table {
	for _, t := range tables {
		if t.Name == name {
			return t
		}
	}
	return schemaddl.Table{}
}

func sortedNames(tables map[string]schemaddl.Table) []string {
	return slices.Sorted(maps.Keys(tables))
}
