package manifest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

func TestSplitStatements(t *testing.T) {
	got, err := SplitStatements("CREATE TABLE a (x INT COMMENT 'a;b'); -- c;d\n# e;f\n/* g;h */ INSERT INTO a VALUES (\"i;\\\"j\"), (`k;l`);;\n")
	require.NoError(t, err)
	require.Equal(t, []string{"CREATE TABLE a (x INT COMMENT 'a;b')", "INSERT INTO a VALUES (\"i;\\\"j\"), (`k;l`)"}, got)

	_, err = SplitStatements("SELECT 'open")
	require.ErrorContains(t, err, "unclosed ' quote")
	_, err = SplitStatements("SELECT 1 /* open")
	require.ErrorContains(t, err, "unclosed /* comment")

	// a--b is an expression, not a comment.
	got, err = SplitStatements("SELECT 1--1; SELECT 2")
	require.NoError(t, err)
	require.Equal(t, []string{"SELECT 1--1", "SELECT 2"}, got)
}

func TestParseTables(t *testing.T) {
	tables, err := ParseTables([]string{
		"CREATE TABLE IF NOT EXISTS `db`.`Ev ents` (`id` BIGINT NOT NULL AUTO_INCREMENT, `key` VARCHAR(10), " +
			"amount DECIMAL(10, 2), at DATETIME(6), PRIMARY KEY (id), KEY k (at, id), " +
			"CONSTRAINT c CHECK (amount > 0), UNIQUE KEY u (`key`))",
		"INSERT INTO x VALUES (1)",
		"create temporary table t2 (y int)",
	})
	require.NoError(t, err)
	require.Len(t, tables, 2)
	ev := tables["ev ents"]
	require.Equal(t, "Ev ents", ev.Name)
	require.Equal(t, map[string]Column{
		"id":     {Name: "id", Type: "bigint", AutoIncrement: true},
		"key":    {Name: "key", Type: "varchar"},
		"amount": {Name: "amount", Type: "decimal"},
		"at":     {Name: "at", Type: "datetime"},
	}, ev.Columns, "a backquoted `key` is a column; KEY, PRIMARY, CONSTRAINT and UNIQUE lines are not")
	require.Equal(t, Column{Name: "y", Type: "int"}, tables["t2"].Columns["y"])

	_, err = ParseTables([]string{"CREATE TABLE broken (x INT"})
	require.ErrorContains(t, err, "unbalanced")
}

func TestParseTablesReadsTheReferenceSchema(t *testing.T) {
	tables, err := ParseTables(reference.SchemaStatements())
	require.NoError(t, err)
	require.Len(t, tables["outbox_events"].Columns, 13)
	require.True(t, tables["outbox_events"].Columns["id"].AutoIncrement)
	require.Equal(t, "json", tables["outbox_events"].Columns["payload"].Type)
	require.Len(t, tables["ai_jobs"].Columns, 5)
}
