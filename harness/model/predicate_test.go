package model

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/schema"
)

func newRef(c string) string { return "NEW." + MySQL.Quote(c) }

func TestRewriteQualifiesColumnsOnly(t *testing.T) {
	cols := []string{"processed_at", "locked_until", "status", "Note"}
	for _, c := range []struct{ in, want string }{
		{"processed_at IS NOT NULL", "NEW.`processed_at` IS NOT NULL"},
		{"locked_until > NOW(6) AND processed_at IS NULL", "NEW.`locked_until` > NOW(6) AND NEW.`processed_at` IS NULL"},
		{"`locked_until`>now(6)", "NEW.`locked_until`>now(6)"},
		{"status = 'processed_at' OR note = 'x''y'", "NEW.`status` = 'processed_at' OR NEW.`Note` = 'x''y'"},
		{"t.status = 1", "t.status = 1"},
		{"COALESCE(processed_at, locked_until) IS NULL", "COALESCE(NEW.`processed_at`, NEW.`locked_until`) IS NULL"},
	} {
		got, err := Rewrite(c.in, cols, MySQL, newRef)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
}

func TestRewriteReadsPostgresQuotes(t *testing.T) {
	got, err := Rewrite(`"processedAt" IS NOT NULL AND kind <> "x"`, []string{"processedAt", "x"}, Postgres,
		func(c string) string { return "NEW." + Postgres.Quote(c) })
	require.NoError(t, err)
	require.Equal(t, `NEW."processedAt" IS NOT NULL AND kind <> NEW."x"`, got)
}

func TestRewriteRefusesWhatATriggerCannotHold(t *testing.T) {
	for _, in := range []string{
		"processed_at IS NOT NULL; DROP TABLE x",
		"processed_at IS NOT NULL -- done",
		"processed_at IS NOT NULL /* done */",
		"status = 'open",
		"(processed_at IS NULL",
		"processed_at IS NULL)",
	} {
		_, err := Rewrite(in, []string{"processed_at", "status"}, MySQL, newRef)
		require.Error(t, err, in)
	}
}

func TestColumnsListsReferences(t *testing.T) {
	got, err := Columns("locked_until > NOW(6) AND processed_at IS NULL AND locked_until IS NOT NULL", []string{"processed_at", "locked_until"}, MySQL)
	require.NoError(t, err)
	require.Equal(t, []string{"locked_until", "processed_at"}, got)
}

func TestKeyExprPerDialect(t *testing.T) {
	m := schema.Mapping{Outbox: schema.Outbox{Table: "outbox", ID: "Id"}}
	require.Equal(t, "CAST(`Id` AS CHAR)", Store{Dialect: MySQL}.KeyExpr(m))
	require.Equal(t, `("Id")::text`, Store{Dialect: Postgres}.KeyExpr(m))
	m.Outbox.IDType = schema.KeyBinary
	require.Equal(t, "LOWER(HEX(`Id`))", Store{Dialect: MySQL}.KeyExpr(m))
	require.Equal(t, `encode("Id", 'hex')`, Store{Dialect: Postgres}.KeyExpr(m))
}
