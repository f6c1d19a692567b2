package model

import (
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// Table is one table the model names: what its records are (history's
// TableOutbox, TableJobs, TableDeadLetter, TableCursor), the dispatcher's
// table, and the column a record keeps as the row's key.
type Table struct {
	Kind, Name, Key string
}

// Tables lists the tables m's model names, for every store's triggers: the
// outbox, and where m has them the jobs table, the dead-letter table and
// the offsets table (keyed by its group column, else its offset column).
func Tables(m schema.Mapping) []Table {
	out := []Table{{history.TableOutbox, m.Outbox.Table, m.Outbox.ID}}
	if m.HasJobs() {
		out = append(out, Table{history.TableJobs, m.Jobs.Table, m.Jobs.ID})
	}
	if d := m.States.DeadLetter; d != nil {
		out = append(out, Table{history.TableDeadLetter, d.Table, d.ID})
	}
	if c := m.States.Cursor; c != nil {
		key := c.GroupColumn
		if key == "" {
			key = c.Column
		}
		out = append(out, Table{history.TableCursor, c.Table, key})
	}
	return out
}

// UnmappedPrefix marks a status word the mapping does not know: it is kept
// as UnmappedPrefix + word, so a checker sees it and names it.
const UnmappedPrefix = "unmapped:"

// Canonical maps a status word through words; "" stays "", an unknown word
// is marked with UnmappedPrefix.
func Canonical(words map[string]string, word string) string {
	if word == "" {
		return ""
	}
	if c, ok := words[word]; ok {
		return c
	}
	return UnmappedPrefix + word
}
