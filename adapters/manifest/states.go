package manifest

import (
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// idType reads how the outbox's primary key is made, from its DDL type:
// AUTO_INCREMENT (the database assigns it), a uuid in a string column, or a
// uuid in BINARY(16). The harness's producer writes the last two.
func (l *loader) idType(o schema.Outbox, tables map[string]schemaddl.Table) string {
	t, ok := tables[strings.ToLower(o.Table)]
	if !ok || o.ID == "" {
		return schema.KeyAuto
	}
	c, ok := t.Columns[strings.ToLower(o.ID)]
	switch {
	case !ok:
		return schema.KeyAuto
	case c.AutoIncrement:
		return schema.KeyAuto
	case c.Type == "binary" || c.Type == "varbinary":
		if c.TypeArgs != "16" {
			l.ps.add("schema.outbox.id", "use BINARY(16) for a uuid key, or AUTO_INCREMENT", "column %s.%s is %s(%s); a binary key must hold a 16-byte uuid", t.Name, c.Name, c.Type, c.TypeArgs)
		}
		return schema.KeyBinary
	case c.Type == "bytea":
		return schema.KeyBinary // PostgreSQL's bytes: a uuid's 16 of them
	case c.Type == "char" || c.Type == "varchar" || c.Type == "uuid" || c.Type == "text":
		return schema.KeyText
	}
	l.ps.add("schema.outbox.id", "declare it AUTO_INCREMENT, or make it a uuid (CHAR(36) or BINARY(16)) the harness's producer writes",
		"column %s.%s is %s, not AUTO_INCREMENT: the harness cannot tell what id to give a new row", t.Name, c.Name, c.Type)
	return schema.KeyAuto
}

// stateSources checks the states against the DDL: each predicate is one
// SQL expression, the dead-letter and offsets tables and their columns
// exist. Whether a predicate runs is checked on the database when the
// harness installs its triggers.
func (l *loader) stateSources(m schema.Mapping, tables map[string]schemaddl.Table) {
	st := m.States
	if ob, ok := tables[strings.ToLower(m.Outbox.Table)]; ok {
		for key, pred := range map[string]string{"published": st.Published, "failed": st.Failed, "claimed": st.Claimed} {
			if pred == "" {
				continue
			}
			cols, err := model.Columns(pred, ob.Order, model.MySQL)
			switch {
			case err != nil:
				l.ps.add("schema.states."+key, "write one SQL expression over the outbox row", "%v", err)
			case len(cols) == 0:
				l.ps.add("schema.states."+key, "refer to at least one column of "+ob.Name+" (columns: "+strings.Join(columnNames(ob), ", ")+")",
					"predicate %q names no column of the outbox table", pred)
			}
		}
	}
	if d := st.DeadLetter; d != nil {
		l.tableColumn("schema.states.dead_letter", d.Table, d.ID, tables)
	}
	if c := st.Cursor; c != nil {
		l.tableColumn("schema.states.cursor", c.Table, c.Column, tables)
		if c.GroupColumn != "" {
			l.tableColumn("schema.states.cursor", c.Table, c.GroupColumn, tables)
		}
	}
}

// tableColumn checks that the DDL creates table with column.
func (l *loader) tableColumn(field, table, column string, tables map[string]schemaddl.Table) {
	t, ok := tables[strings.ToLower(table)]
	if !ok {
		l.ps.add(field+".table", "fix the name, or add its CREATE TABLE to the DDL file (have: "+strings.Join(tableNames(tables), ", ")+")",
			"table %q is not created by the DDL", table)
		return
	}
	if _, ok := t.Columns[strings.ToLower(column)]; !ok {
		l.ps.add(field, "fix the name (columns of "+t.Name+": "+strings.Join(columnNames(t), ", ")+")",
			"column %q is not in table %s of the DDL", column, t.Name)
	}
}
