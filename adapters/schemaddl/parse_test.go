package schemaddl

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/contract"
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
		"id":     {Name: "id", Type: "bigint", AutoIncrement: true, NotNull: true},
		"key":    {Name: "key", Type: "varchar", TypeArgs: "10"},
		"amount": {Name: "amount", Type: "decimal", TypeArgs: "10, 2"},
		"at":     {Name: "at", Type: "datetime", TypeArgs: "6"},
	}, ev.Columns, "a backquoted `key` is a column; KEY, PRIMARY, CONSTRAINT and UNIQUE lines are not")
	require.Equal(t, []string{"id", "key", "amount", "at"}, ev.Order)
	require.Equal(t, []string{"id"}, ev.PrimaryKey)
	require.Equal(t, []string{"amount > 0"}, ev.Checks)
	require.Equal(t, Column{Name: "y", Type: "int"}, tables["t2"].Columns["y"])

	_, err = ParseTables([]string{"CREATE TABLE broken (x INT"})
	require.ErrorContains(t, err, "unbalanced")
}

func TestParseTablesReadsTheReferenceSchema(t *testing.T) {
	tables, err := ParseTables(contract.SchemaStatements())
	require.NoError(t, err)
	require.Len(t, tables["outbox_events"].Columns, 13)
	require.True(t, tables["outbox_events"].Columns["id"].AutoIncrement)
	require.Equal(t, "json", tables["outbox_events"].Columns["payload"].Type)
	require.Len(t, tables["ai_jobs"].Columns, 5)
}

func TestParseTablesReadsAttributes(t *testing.T) {
	tables, err := ParseTables([]string{
		"CREATE TABLE m (\n" +
			"  `id` bigint(20) NOT NULL AUTO_INCREMENT COMMENT 'not DEFAULT ''x'' CHECK (id IN (''y''))',\n" +
			"  `status` enum('new','it''s','sent') NOT NULL DEFAULT 'new',\n" +
			"  `body` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL CHECK (json_valid(`body`)),\n" +
			"  at datetime(6) NOT NULL DEFAULT current_timestamp(6),\n" +
			"  job varchar(64) REFERENCES jobs (id),\n" +
			"  CONSTRAINT `fk` FOREIGN KEY (job) REFERENCES `other` (`id`),\n" +
			"  PRIMARY KEY (`id`, at)\n" +
			") ENGINE=InnoDB AUTO_INCREMENT=12 DEFAULT CHARSET=utf8mb4",
	})
	require.NoError(t, err)
	m := tables["m"]
	require.Equal(t, Column{Name: "id", Type: "bigint", TypeArgs: "20", AutoIncrement: true, NotNull: true}, m.Columns["id"],
		"a COMMENT's text is no attribute")
	require.Equal(t, Column{Name: "status", Type: "enum", TypeArgs: "'new','it''s','sent'",
		Values: []string{"new", "it's", "sent"}, Default: "new", DefaultString: true, NotNull: true}, m.Columns["status"])
	require.Equal(t, []string{"json_valid(`body`)"}, m.Columns["body"].Checks)
	require.Equal(t, Column{Name: "at", Type: "datetime", TypeArgs: "6", Default: "current_timestamp(6)", NotNull: true}, m.Columns["at"])
	require.False(t, m.Columns["job"].NotNull)
	require.Equal(t, []string{"jobs", "other"}, m.References)
	require.Equal(t, []string{"id", "at"}, m.PrimaryKey)
}

func TestWordsReadsEnumsAndChecks(t *testing.T) {
	tables, err := ParseTables([]string{
		"CREATE TABLE a (s ENUM('x','y','x'), t VARCHAR(9) CHECK (`t` in ('p', 'q')), u VARCHAR(9), v VARCHAR(9), w INT," +
			" CONSTRAINT c CHECK (u = 'one' OR u = 'two' OR v IS NULL), CHECK (w > 0))",
	})
	require.NoError(t, err)
	a := tables["a"]
	require.Equal(t, Vocabulary{Words: []string{"x", "y"}, From: "ENUM('x','y','x')"}, a.Words("s"))
	require.Equal(t, Vocabulary{Words: []string{"p", "q"}, From: "CHECK (`t` in ('p', 'q'))"}, a.Words("T"))
	require.Equal(t, []string{"one", "two"}, a.Words("u").Words)
	require.Empty(t, a.Words("v").Words, "v IS NULL names no word")
	require.Empty(t, a.Words("w").Words)
	require.Empty(t, a.Words("missing").Words)
}

// PostgreSQL's spellings, as init reconstructs them from the catalog and as
// a team writes them: quoted names, serial and identity columns, an ENUM
// type, and the catalog's form of an IN list.
func TestParseTablesReadsPostgreSQL(t *testing.T) {
	stmts, err := SplitStatements(`CREATE TYPE public.outbox_state AS ENUM ('new', 'sent', 'dead');
CREATE TABLE "Relay" (
  "offset" BIGSERIAL PRIMARY KEY,
  seq INTEGER GENERATED BY DEFAULT AS IDENTITY (START WITH 5),
  n BIGINT GENERATED ALWAYS AS IDENTITY,
  twice BIGINT GENERATED ALWAYS AS (n * 2) STORED,
  state outbox_state NOT NULL DEFAULT 'new'::outbox_state,
  kind VARCHAR(16) NOT NULL DEFAULT 'a'::character varying,
  code SMALLINT NOT NULL DEFAULT 0,
  sent_at TIMESTAMP(6) WITH TIME ZONE,
  done_at timestamptz,
  note character varying(40),
  CONSTRAINT kind_words CHECK (((kind)::text = ANY ((ARRAY['a'::character varying, 'b'::character varying])::text[]))),
  CONSTRAINT codes CHECK ((code = ANY (ARRAY[0, 1, 2])))
)`)
	require.NoError(t, err)
	tables, err := ParseTables(stmts)
	require.NoError(t, err)
	r := tables["relay"]
	require.Equal(t, "Relay", r.Name)
	require.Equal(t, []string{"offset", "seq", "n", "twice", "state", "kind", "code", "sent_at", "done_at", "note"}, r.Order)
	require.Equal(t, Column{Name: "offset", Type: "bigint", AutoIncrement: true}, r.Columns["offset"])
	require.Equal(t, Column{Name: "seq", Type: "integer", AutoIncrement: true}, r.Columns["seq"])
	require.True(t, r.Columns["n"].AutoIncrement)
	require.Equal(t, Column{Name: "twice", Type: "bigint"}, r.Columns["twice"], "a generated column is no identity")
	require.Equal(t, Column{Name: "state", Type: "outbox_state", Values: []string{"new", "sent", "dead"}, Default: "new", DefaultString: true, NotNull: true}, r.Columns["state"])
	require.Equal(t, "timestamp", r.Columns["sent_at"].Type)
	require.Equal(t, "timestamp", r.Columns["done_at"].Type)
	require.Equal(t, Column{Name: "note", Type: "varchar", TypeArgs: "40"}, r.Columns["note"])
	require.Equal(t, []string{"offset"}, r.PrimaryKey)
	require.Equal(t, Vocabulary{Words: []string{"new", "sent", "dead"}, From: "the ENUM type outbox_state"}, r.Words("state"))
	require.Equal(t, []string{"a", "b"}, r.Words("kind").Words)
	require.Equal(t, []string{"0", "1", "2"}, r.Words("code").Words, "integer codes")
}

func TestWordsReadsIntegerCodes(t *testing.T) {
	tables, err := ParseTables([]string{"CREATE TABLE a (s TINYINT NOT NULL DEFAULT 0 CHECK (s IN (0, 1, 2, 3)))"})
	require.NoError(t, err)
	require.Equal(t, []string{"0", "1", "2", "3"}, tables["a"].Words("s").Words)
}
