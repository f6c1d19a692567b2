// Package draft drafts a manifest (package manifest) for a team's own
// dispatcher from its tables: `outboxchaos init` is a thin command over
// Write. Every value of the draft carries the reason for it as a comment,
// and the values that need the user are marked GUESS, EDIT, NOT FOUND or
// UNMAPPED and listed in Result.Attention. The draft is not validated
// here: loading it as a manifest says what still needs fixing. A draft
// loads once its EDIT placeholders are filled, or fails loading only on
// them (a cursor's consumer group, a status word a closed vocabulary
// lacks).
//
// # Reading the tables
//
// The tables come from a SQL file of CREATE TABLE statements (Options.DDL,
// parsed by package schemaddl), else from the database (Options.DSN); with
// both, the tables come from the file and the status words, the cursor's
// group and the conventions from the database too. The database is only
// read: one connection, a read-only session, one READ ONLY transaction
// rolled back at the end, one statement per query, and any statement but a
// SELECT (and, on MySQL, SHOW) refused before it is sent (source.go).
//
// MySQL and MariaDB (a go-sql-driver/mysql DSN) are read with SHOW CREATE
// TABLE, the session SET SESSION TRANSACTION READ ONLY and multi-statements
// off. PostgreSQL (a postgres:// URL, or a key=value string naming a
// dbname) is read through pgx with default_transaction_read_only on, BEGIN
// READ ONLY and the extended protocol whatever the DSN's query mode
// (pgsource.go): the current schema's base tables from
// information_schema, and from pg_catalog each column's type
// (format_type), NOT NULL, default, identity or generated expression, the
// primary key, unique, check and foreign key constraints
// (pg_get_constraintdef), and the ENUM types. From these init reconstructs
// the DDL: a CREATE TYPE per ENUM type, and a CREATE TABLE per table in
// which an integer column whose default is its sequence's nextval is
// written SERIAL (BIGSERIAL, SMALLSERIAL), an identity GENERATED ... AS
// IDENTITY, an array T ARRAY; indexes are left out. The reconstruction is
// parsed like any DDL file, so the tables drafted from a database and from
// the file init writes are the same.
//
// From a database, the tables the draft names (jobs, outbox, offsets,
// dead-letter) are written beside it (SchemaPath), each after the tables
// it references and, on PostgreSQL, after the ENUM types it uses; MySQL's
// without their AUTO_INCREMENT counters. The store key is the database's,
// or, from a file, postgres when the file spells something only PostgreSQL
// writes (BIGSERIAL, TIMESTAMPTZ, JSONB, BYTEA, AS IDENTITY, a :: cast),
// else mysql, marked a guess.
//
// # Choosing the tables and the columns
//
// Each contract column (the schema mapping's keys, match.go) has names that
// are it, words of a name that suggest it, and a kind of column it must be
// (text, integer, time, a JSON payload, a key: an AUTO_INCREMENT integer or
// a uuid in CHAR(36), BINARY(16) or UUID). A column scores 100 for a name
// that is the key's, less for words of its name or its type alone, 0 when
// it cannot hold the key; each key takes the best-scoring free column,
// highest scores first, so a column that is exactly one key's name is never
// taken by a weaker guess for another.
//
// An outbox may have a jobs table beside it or none (pair.go). Every
// ordered pair of distinct tables is scored as outbox and jobs table, but a
// pair counts only when the link is real: the outbox's aggregate column
// has a FOREIGN KEY to the jobs table, is named like the jobs table's id
// (not a bare "id") or after the jobs table (job_id beside ai_jobs), or is
// the contract's aggregate_id beside a table named like jobs. The best
// complete linked pair wins; without one, the best complete outbox alone
// (a key and a payload; event_type and aggregate_id optional, message_id
// and topic added). A table named like a dead-letter or offsets table
// scores lower as an outbox. A tie is an error naming both, as is no
// complete outbox (it names the closest); Options.OutboxTable and
// JobsTable name the tables instead, JobsTable NoJobs for none.
//
// # Where a message is
//
// With a status column (text, or an integer), the status map says where a
// message is. Without one, the states do (shape.go, side.go):
//
//   - published: a published-at column (processed_at, sent_at, ...) means
//     "col IS NOT NULL"; else an offsets table beside an append-only outbox
//     (an AUTO_INCREMENT id, no claim, lease, attempt, backoff or error
//     column) means a cursor: the table's offset column (offset_acked,
//     last_offset, ...) and its consumer group column, whose group is the
//     only one the data holds, else an EDIT placeholder that fails loading
//     until filled; else deleted: published.
//   - failed: a failed-at column (abandoned_at, failed_at, ...) means
//     "col IS NOT NULL"; else, for a relay that deletes its rows, a
//     dead-letter table (named like one, or with an error and a failed-at
//     column) with a column of the outbox id's kind linking to the row;
//     else none, said so.
//   - claimed: the lease column means "col > NOW(6)" (MySQL) or "col >
//     clock_timestamp()" (PostgreSQL: the statement's clock, not the
//     transaction's); else started_attempts > finished_attempts; else none.
//
// Every state is a guess from names, and said so. NOT NULL columns without
// a DEFAULT that the harness's producer does not write get constants with
// placeholder values (constants.go).
//
// # Status words and codes
//
// Each status map's words are those the column is known to hold: its ENUM
// (a MySQL ENUM or a PostgreSQL ENUM type) or CHECK list, the data's
// distinct values (from a database), and its string DEFAULT. Each word is
// mapped onto the canonical word it usually means, by a list of synonyms or
// one of its parts (dead_letter reads as dead); a word that reads as none
// is left unmapped and said so. A required canonical word no word reached
// is, for an open vocabulary, the contract's own word, marked as a guess;
// for a closed one (an ENUM or a CHECK) it is left out, so the draft fails
// validation naming the missing word (status.go). Integer codes are mapped
// in the order such codes usually have (0 pending, 1 processing, 2
// published, 3 failed), the DEFAULT first, every entry a guess; an open
// vocabulary is completed up to the required words.
//
// # What the tables cannot say
//
// The sink is BullMQ, marked EDIT with the alternatives (redis-stream,
// redis-list, and their message_id and payload keys) in comments. The
// delivery promise is a guess: exactly-once-effect beside a jobs table,
// at-least-once without one. capabilities.clock comes from the commands
// (clock.go): a build step that runs go build means go-overlay, a start
// command that is Node.js, Python or Java (node, npm, python3, java, ...)
// faketime, both guesses; anything else none, marked EDIT.
//
// # Conventions
//
// With a database, the release and recovery conventions come from the
// data (conventions.go). One snapshot cannot show a row going back to
// pending, so init reads the distinct last_error texts of rows that are
// pending now (a pending status word, or none of the states' predicates
// holding) with attempts > 0, and groups them by prefix: up to the first
// word ending in ':', at most three words, never a word with a digit. A
// release and a retry both write last_error, so a prefix is a release or a
// recovery only by its own words (released, shutting down; lease expired,
// recovered, ...), and a GUESS; a prefix that reads as neither (or both) is
// listed in a comment and not declared. A convention the data did not show
// is never written.
//
// # Errors
//
// Every refusal says what to fix. They name the options as `outboxchaos
// init`'s flags (--dsn, --ddl, --out, --start, --build, --outbox-table,
// --jobs-table, --force), which are the command's spelling of Options; no
// error carries a password. Without Options.Force no file is ever
// replaced, even one created while the draft was made.
package draft
