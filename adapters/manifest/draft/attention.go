package draft

import (
	"fmt"
	"strings"
)

// attention lists the draft's lines that need the user, for the summary:
// columns not found, placeholders, guesses the tables alone cannot settle.
func (d draft) attention() []string {
	var out []string
	for _, k := range d.pair.outbox.missing {
		out = append(out, fmt.Sprintf("schema.outbox.%s: no column found", k))
	}
	if d.pair.jobs != nil {
		for _, k := range d.pair.jobs.missing {
			out = append(out, fmt.Sprintf("schema.jobs.%s: no column found", k))
		}
	}
	if d.shape == nil {
		out = append(out, statusAttention(outboxRole.field, d.outboxStatus)...)
	} else {
		out = append(out, d.shape.attention()...)
	}
	if d.pair.jobs != nil {
		out = append(out, statusAttention(jobsRole.field, d.jobStatus)...)
	}
	for _, c := range d.constants() {
		out = append(out, fmt.Sprintf("schema.outbox.constants.%s: %s is a placeholder for the value the producer writes", c.column, q(c.value)))
	}
	out = append(out, "sink.kind: bullmq is a placeholder: the sink cannot be read from the tables")
	if strings.HasPrefix(d.clock.reason, "GUESS") {
		out = append(out, fmt.Sprintf("capabilities.clock: %s is a guess from the start and build commands", d.clock.value))
	}
	for _, s := range []struct {
		key  string
		list []prefixSeen
	}{{"releases", d.conventions.releases}, {"recoveries", d.conventions.recoveries}} {
		for _, p := range s.list {
			out = append(out, fmt.Sprintf("conventions.%s: %s was seen in the data; a guess to confirm", s.key, q(p.prefix)))
		}
	}
	return out
}

func statusAttention(field string, g statusGuess) []string {
	var out []string
	for _, p := range g.picks {
		if p.guess {
			out = append(out, fmt.Sprintf("schema.%s.%s: no word of yours reads as %s; the contract's word is a placeholder", field, p.word, p.canonical))
		}
	}
	for _, n := range g.notes {
		if strings.HasPrefix(n, "NOT FOUND") || strings.HasPrefix(n, "UNMAPPED") || strings.HasPrefix(n, "GUESS") {
			out = append(out, "schema."+field+": "+n)
		}
	}
	return out
}

// attention lists the states, each a guess from the column names, and the
// cursor's group when it is left to the user.
func (sh *shapeGuess) attention() []string {
	var out []string
	for _, l := range sh.lines {
		out = append(out, fmt.Sprintf("schema.states.%s: %s is a guess from the column and table names", l.key, l.value))
	}
	if c := sh.cursor; c != nil {
		out = append(out, fmt.Sprintf("schema.states.cursor: %s.%s is a guess from the table and column names", c.table, c.column))
		if c.groupColumn != "" && c.group == "" {
			out = append(out, "schema.states.cursor.group: EDIT: name the consumer group your relay writes in "+c.table+"."+c.groupColumn)
		}
	}
	return out
}
