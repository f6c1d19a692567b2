// Package model is the one place that says what a dispatcher's outbox means:
// where a message is (pending, claimed, published, failed) for whatever
// shape the team's outbox has, and what the outbox can express at all.
//
// # Shapes
//
// A schema.Mapping says where a message is in one of two forms:
//
//   - status words: a status column whose words map onto the canonical
//     statuses (the contract's own shape, and any outbox with a status
//     column, integer codes included);
//   - states: one source per state. published is a SQL predicate over the
//     row ("processed_at IS NOT NULL"), the row's deletion (deleted:
//     published), or a cursor in an offsets table that passes the row's id.
//     failed is a predicate, the deletion, a dead-letter table, or nothing.
//     claimed is a predicate ("locked_until > NOW(6)") or nothing. Every
//     other row is pending.
//
// # From raw facts to canonical transitions
//
// The store's triggers record a row image of every insert, update and
// delete on each table the model names (the outbox, the jobs table, the
// dead-letter table, the offsets table), with the database clock and the
// writer. Predicates are evaluated by the trigger itself, on the row as
// written and at the write's own database time (StatusExpr), because only
// the database can evaluate SQL and a predicate over time ("locked_until >
// NOW(6)") must be read when the row changed. Derive then turns the raw
// records into the canonical outbox transitions every checker reads:
//
//   - outbox keys that are not the event id (a uuid, a BINARY(16) key in
//     hex) become the event's id;
//   - for a state predicate, a row's old status is the status its previous
//     write left (a claim whose lease ran out without a write reads as
//     processing until the next write says otherwise, which is what a
//     takeover of an expired lease looks like);
//   - a deletion is a finalize into published, or failed when the row went
//     to the dead-letter table;
//   - a dead-letter insert of a row that is never deleted finalizes it into
//     failed;
//   - an offsets-table write that moves the group's cursor from a to b
//     publishes every event with a < id <= b whose transaction had committed
//     by then (a held transaction that commits behind the cursor is skipped:
//     the relay never sees it, which is what a commit-order gap does to a
//     cursor), attributed to the cursor's writer. The group's own records
//     stay in the history (history.TableCursor, with Offset), so a checker
//     can tell when the cursor passed an id it never published.
//
// DeriveFinal does the same for the final scan: a deleted row reads as what
// its deletion meant, a cursor's rows as what the cursor made of them.
//
// # What the outbox can express
//
// Caps reads the mapping into a history.Model: its form, and what it lacks
// (claims, leases, attempts, backoff, failed, jobs, poison). The checkers
// call an invariant whose needs the outbox lacks "not applicable", never a
// pass. Poison needs a jobs table, a failed state and an event_type column:
// the contract's permanent failures (unknown type, missing job, queue not
// allowed, illegal jobId) are about jobs rows.
package model
