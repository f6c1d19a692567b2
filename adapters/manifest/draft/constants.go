package draft

import (
	"fmt"
	"strings"
)

// producerWrites are the outbox keys the harness's producer writes in a new
// row (harness/workload): the key when the database does not assign it,
// the event's columns, the status word, the topic and the message id.
var producerWrites = []string{"id", "event_type", "aggregate_id", "payload", "status", "topic", "message_id"}

// constant is a column the producer must be given a value for.
type constant struct {
	column, value string
}

// constants proposes a value for each NOT NULL column of the outbox without
// a DEFAULT that the harness's producer would not write otherwise, so that
// its insert can succeed: 0 for an integer, the epoch's first second for a
// time, "" for anything else. Each value is a placeholder.
func (d draft) constants() []constant {
	o := d.pair.outbox
	written := map[string]bool{}
	for _, k := range producerWrites {
		if p, ok := o.picks[k]; ok && !(k == "status" && d.shape != nil) {
			written[strings.ToLower(p.column)] = true
		}
	}
	var out []constant
	for _, name := range o.table.Order {
		c := o.table.Columns[strings.ToLower(name)]
		if !c.NotNull || c.Default != "" || c.AutoIncrement || written[strings.ToLower(name)] {
			continue
		}
		v := ""
		switch {
		case integerTypes[c.Type]:
			v = "0"
		case c.Type == "datetime" || c.Type == "timestamp":
			v = "1970-01-01 00:00:01"
		}
		out = append(out, constant{c.Name, v})
	}
	return out
}

// renderConstants writes the outbox's constants, if any.
func (d draft) renderConstants(b *strings.Builder) {
	list := d.constants()
	if len(list) == 0 {
		return
	}
	var entries, names []string
	for _, c := range list {
		entries = append(entries, q(c.column)+": "+q(c.value))
		names = append(names, c.column)
	}
	fmt.Fprintf(b, "    constants: {%s}  # EDIT: NOT NULL without a DEFAULT and no column the harness's producer fills (%s): write the value it should put in each\n",
		strings.Join(entries, ", "), strings.Join(names, ", "))
}
