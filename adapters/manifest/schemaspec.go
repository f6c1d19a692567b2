package manifest

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// rawSchema is the mapping form of the schema key.
type rawSchema struct {
	DDL          string            `yaml:"ddl"`
	Outbox       schema.Outbox     `yaml:"outbox"`
	Jobs         schema.Jobs       `yaml:"jobs"`
	OutboxStatus map[string]string `yaml:"outbox_status"`
	JobStatus    map[string]string `yaml:"job_status"`
	States       schema.States     `yaml:"states"`
}

// hasJobs tells whether the manifest describes a jobs table at all.
func (r rawSchema) hasJobs() bool { return r.Jobs != (schema.Jobs{}) || len(r.JobStatus) > 0 }

// Canonical words a mapping must reach, and those it may reach.
var (
	outboxCanonical = []string{history.StatusPending, history.StatusProcessing, history.StatusPublished, history.StatusFailed}
	jobRequired     = []string{history.JobCreated, history.JobQueued}
	jobCanonical    = []string{history.JobCreated, history.JobQueued, history.JobRunning, history.JobSucceeded}
)

// Column keys that must be named, and the kinds some columns must have.
var (
	requiredOutbox = map[string]bool{"table": true, "id": true, "payload": true}
	requiredJobs   = map[string]bool{"table": true, "id": true, "queue": true, "status": true}
	integerColumns = map[string]bool{"attempts": true}
	timeColumns    = map[string]bool{"available_at": true, "locked_until": true, "published_at": true, "created_at": true}
	// requiredWithJobs and requiredWithWords are required besides
	// requiredOutbox with a jobs table, and in the status-word form.
	requiredWithJobs  = map[string]bool{"event_type": true, "aggregate_id": true}
	requiredWithWords = map[string]bool{"status": true}
	integerTypes      = map[string]bool{"tinyint": true, "smallint": true, "mediumint": true, "int": true, "integer": true, "bigint": true}
	timeTypes         = map[string]bool{"datetime": true, "timestamp": true}
)

const schemaFix = `write schema: reference, or a mapping with ddl, outbox, and outbox_status or states (and jobs with job_status when there is a jobs table)`

func (l *loader) schema(n *yaml.Node) schema.Mapping {
	switch {
	case n.Kind == 0:
		l.ps.add("schema", schemaFix, "schema is missing")
		return schema.Mapping{}
	case n.Kind == yaml.ScalarNode && n.Value == "reference":
		return schema.Reference()
	case n.Kind != yaml.MappingNode:
		l.ps.add("schema", schemaFix, "%q is not a schema", n.Value)
		return schema.Mapping{}
	}
	var r rawSchema
	if err := n.Decode(&r); err != nil {
		l.ps.add("schema", schemaFix, "cannot read the schema mapping: %v", err)
		return schema.Mapping{}
	}
	before := len(l.ps.list)
	m := schema.Mapping{Outbox: r.Outbox, Jobs: r.Jobs, OutboxStatus: r.OutboxStatus, JobStatus: r.JobStatus, States: r.States}
	tables := l.ddl(r.DDL, &m)
	if tables != nil {
		l.columns("schema.outbox", reflect.ValueOf(r.Outbox), outboxRequired(r), tables)
		if r.hasJobs() {
			l.columns("schema.jobs", reflect.ValueOf(r.Jobs), requiredJobs, tables)
		}
		m.Outbox.IDType = l.idType(r.Outbox, tables)
		l.stateSources(m, tables)
	}
	if m.StatusWords() {
		l.words("schema.outbox_status", r.OutboxStatus, outboxCanonical, outboxCanonical)
	} else if len(r.OutboxStatus) > 0 {
		l.ps.add("schema.outbox_status", "drop outbox_status: with states, the states say where a message is", "outbox_status and states are both given")
	}
	if r.hasJobs() {
		l.words("schema.job_status", r.JobStatus, jobRequired, jobCanonical)
	}
	if len(l.ps.list) == before {
		var fe *schema.FieldError
		if err := m.Validate(); errors.As(err, &fe) {
			l.ps.add("schema."+fe.Field, fe.Fix, "%s", fe.What)
		} else if err != nil {
			l.ps.add("schema", "fix the mapping", "%v", err)
		}
	}
	return m
}

// outboxRequired is the outbox columns the manifest's shape needs named.
func outboxRequired(r rawSchema) map[string]bool {
	out := maps.Clone(requiredOutbox)
	if r.hasJobs() {
		maps.Copy(out, requiredWithJobs)
	}
	if r.States.IsZero() {
		maps.Copy(out, requiredWithWords)
	}
	return out
}

// ddl reads the DDL file into m.DDL and returns its tables, or nil.
func (l *loader) ddl(file string, m *schema.Mapping) map[string]schemaddl.Table {
	if file == "" {
		l.ps.add("schema.ddl", "name the SQL file that creates the dispatcher's tables, relative to the manifest", "ddl is missing")
		return nil
	}
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.dir, p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		l.ps.add("schema.ddl", "name an existing SQL file, relative to the manifest's directory "+l.dir, "cannot read DDL file %q: %v", file, err)
		return nil
	}
	stmts, err := schemaddl.SplitStatements(string(data))
	if err == nil && len(stmts) == 0 {
		err = fmt.Errorf("no statements")
	}
	if err != nil {
		l.ps.add("schema.ddl", "fix the SQL file", "DDL file %q: %v", file, err)
		return nil
	}
	tables, err := schemaddl.ParseTables(stmts)
	if err != nil {
		l.ps.add("schema.ddl", "fix the CREATE TABLE statement", "DDL file %q: %v", file, err)
		return nil
	}
	m.DDL = stmts
	return tables
}

// columns checks one table section: the table exists in the DDL, each
// required column is named, each named column exists with a usable type.
func (l *loader) columns(section string, v reflect.Value, required map[string]bool, tables map[string]schemaddl.Table) {
	names := sectionNames(v)
	tableName := names["table"]
	if tableName == "" {
		l.ps.add(section+".table", "name the table", "%s.table is missing", section)
		return
	}
	t, ok := tables[strings.ToLower(tableName)]
	if !ok {
		l.ps.add(section+".table", "fix the name, or add its CREATE TABLE to the DDL file (have: "+strings.Join(tableNames(tables), ", ")+")",
			"table %q is not created by the DDL", tableName)
		return
	}
	keys := slices.Sorted(maps.Keys(names))
	for _, key := range keys {
		col := names[key]
		if key == "table" {
			continue
		}
		field := section + "." + key
		if col == "" {
			if required[key] {
				l.ps.add(field, "name the column of "+t.Name+" that holds "+key, "%s is required", field)
			}
			continue
		}
		c, ok := t.Columns[strings.ToLower(col)]
		if !ok {
			l.ps.add(field, "fix the name, or add the column to the DDL (columns of "+t.Name+": "+strings.Join(columnNames(t), ", ")+")",
				"column %q is not in table %s of the DDL", col, t.Name)
			continue
		}
		l.columnType(field, key, c)
	}
}

func (l *loader) columnType(field, key string, c schemaddl.Column) {
	switch {
	case integerColumns[key] && !integerTypes[c.Type]:
		l.ps.add(field, "use an integer column (INT) or leave "+key+" out", "column %s is %s; %s must be an integer type", c.Name, c.Type, key)
	case timeColumns[key] && !timeTypes[c.Type]:
		l.ps.add(field, "use DATETIME(6) or TIMESTAMP(6), or leave "+key+" out", "column %s is %s; %s must be DATETIME or TIMESTAMP", c.Name, c.Type, key)
	}
}

// words checks a status map: every value canonical, every required
// canonical word reached.
func (l *loader) words(field string, words map[string]string, required, allowed []string) {
	if len(words) == 0 {
		l.ps.add(field, fmt.Sprintf("map the dispatcher's status words onto %s", strings.Join(required, ", ")), "%s is missing", field)
		return
	}
	ok := map[string]bool{}
	for _, c := range allowed {
		ok[c] = true
	}
	reached := map[string]bool{}
	keys := slices.Sorted(maps.Keys(words))
	for _, w := range keys {
		c := words[w]
		if strings.TrimSpace(w) == "" {
			l.ps.add(field, "remove the empty key", "an empty status word")
		}
		if !ok[c] {
			l.ps.add(field+"."+w, "map it to one of "+strings.Join(allowed, ", "), "%q maps to %q, which is not a canonical status", w, c)
			continue
		}
		reached[c] = true
	}
	for _, c := range required {
		if !reached[c] {
			l.ps.add(field, fmt.Sprintf("add an entry <your word>: %s", c), "no status word maps to the canonical %q", c)
		}
	}
}

// sectionNames reads a schema.Outbox or schema.Jobs as yaml key -> column.
func sectionNames(v reflect.Value) map[string]string {
	out := map[string]string{}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if key == "-" || t.Field(i).Type.Kind() != reflect.String {
			continue // not a column name (the id type, the constants)
		}
		out[key] = strings.TrimSpace(v.Field(i).String())
	}
	return out
}

func tableNames(tables map[string]schemaddl.Table) []string {
	var out []string
	for _, t := range tables {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

func columnNames(t schemaddl.Table) []string {
	var out []string
	for _, c := range t.Columns {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}
