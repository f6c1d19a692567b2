// Package draft drafts a manifest (package manifest) for a team's own
// dispatcher from its tables: `outboxchaos init` is a thin command over
// Write. Every value of the draft carries the reason for it as a comment,
// and the values that need the user are marked GUESS, EDIT, NOT FOUND or
// UNMAPPED and listed in Result.Attention. The draft is not validated
// here: loading it as a manifest says what still needs fixing.
//
// # Reading the tables
//
// The tables come from a SQL file of CREATE TABLE statements (Options.DDL,
// parsed by package schemaddl), else from the database (Options.DSN, via
// SHOW CREATE TABLE); with both, the tables come from the file and the
// status words from the database too. The database is only read: one
// connection, SET SESSION TRANSACTION READ ONLY, one READ ONLY transaction
// rolled back at the end, multi-statements off, and any statement but
// SELECT and SHOW refused before it is sent (source.go). From a database,
// the tables' statements are written beside the draft (SchemaPath), the
// jobs table first, without their AUTO_INCREMENT counters.
//
// # Choosing the tables and the columns
//
// Each contract column (the schema mapping's keys, match.go) has names that
// are it, words of a name that suggest it, and a kind of column it must be
// (text, integer, time, a JSON payload, an AUTO_INCREMENT id). A column
// scores 100 for a name that is the key's, less for words of its name or
// its type alone, 0 when it cannot hold the key; each key takes the
// best-scoring free column, highest scores first, so a column that is
// exactly one key's name is never taken by a weaker guess for another.
// Every ordered pair of distinct tables is scored as outbox and jobs
// table (their columns, their names, the outbox's link to the jobs table)
// and the best complete pair wins (pair.go). A tie between two different
// pairs is an error naming both, as is no complete pair (it names the
// closest); Options.OutboxTable and JobsTable name the tables instead.
//
// # Status words
//
// Each status map's words are those the column is known to hold: its ENUM
// or CHECK list, the data's distinct values (from a database), and its
// string DEFAULT. Each word is mapped onto the canonical word it usually
// means, by a list of synonyms or one of its parts (dead_letter reads as
// dead); a word that reads as none is left unmapped and said so. A
// required canonical word no word reached is, for an open vocabulary, the
// contract's own word, marked as a guess; for a closed one (an ENUM or a
// CHECK) it is left out, so the draft fails validation naming the missing
// word (status.go).
//
// # Errors
//
// Every refusal says what to fix. They name the options as `outboxchaos
// init`'s flags (--dsn, --ddl, --out, --outbox-table, --jobs-table,
// --force), which are the command's spelling of Options; no error carries
// a password. Without Options.Force no file is ever replaced, even one
// created while the draft was made.
package draft
