// Package schemaddl reads the SQL that creates a dispatcher's tables: it
// splits a file into statements and learns, from each CREATE TABLE, the
// columns with their base types, AUTO_INCREMENT, NOT NULL, DEFAULT, ENUM or
// SET values and CHECK constraints, the primary key and the tables its foreign
// keys reference.
//
// Two packages use it: adapters/manifest checks a manifest's schema mapping
// against the columns its DDL file creates, and the `outboxchaos init`
// command reads a DDL file (or the SHOW CREATE TABLE text of a live
// database) to propose a mapping. It needs no server.
//
// The parser is deliberately simple. SplitStatements splits at semicolons
// outside quotes and comments and drops the comments; it does not
// understand DELIMITER blocks (triggers and procedures with bodies).
// ParseTables reads a table body as comma-separated elements outside
// parentheses and quotes: an element that starts with KEY, INDEX, PRIMARY,
// UNIQUE, CONSTRAINT, FOREIGN, FULLTEXT, SPATIAL, CHECK or PERIOD is a
// constraint (a backquoted `key` is a column), any other is a column
// definition "name type[(args)] attributes...". Attributes are read as
// words, quoted strings and parenthesised groups, so a COMMENT 'DEFAULT x'
// is never taken for a default. Other statements (INSERT, ALTER, SET) are
// ignored.
//
// PostgreSQL's spellings are read too, as its catalog or a team's file
// writes them: a "quoted" identifier; CHARACTER VARYING reads as VARCHAR,
// TIMESTAMPTZ as TIMESTAMP, INT8, INT4 and INT2 as BIGINT, INTEGER and
// SMALLINT; SERIAL, BIGSERIAL and SMALLSERIAL read
// as INTEGER, BIGINT and SMALLINT with AUTO_INCREMENT, as does a column
// GENERATED ... AS IDENTITY; a column whose type a CREATE TYPE name AS ENUM
// (...) statement of the same file creates has that type's labels as its
// values (its Type stays the type's name).
//
// Words reads the status words a column allows: the values of an ENUM or
// SET type (or a PostgreSQL ENUM type), and the literals of a CHECK
// constraint that compares the column with IN (...) or =, or with
// PostgreSQL's = ANY (ARRAY[...]): its strings, or the integers of a list
// without strings (integer status codes). Both are closed vocabularies: a
// row cannot hold another word.
package schemaddl
