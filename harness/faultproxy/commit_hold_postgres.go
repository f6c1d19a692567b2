package faultproxy

import "time"

// CommitHoldPostgres holds a client's COMMIT to PostgreSQL back for Hold,
// with everything the client sends after it, while the transaction keeps
// its row locks (doc.go, "PostgreSQL: a held COMMIT"; the filter is in
// pg_commit_hold.go). It is what CommitHoldMySQL becomes on a PostgreSQL
// store (StoreBound).
type CommitHoldPostgres struct {
	Times int           // COMMITs to hold before passing everything; 0 means once
	Hold  time.Duration // how long each is held, > 0
}

// Kind is "commit-hold-postgres".
func (CommitHoldPostgres) Kind() Kind { return "commit-hold-postgres" }

// String is "commit-hold-postgres <Hold>".
func (f CommitHoldPostgres) String() string { return "commit-hold-postgres " + f.Hold.String() }

func (CommitHoldPostgres) protocol() string { return StorePostgres }

// Params records times.
func (f CommitHoldPostgres) Params() map[string]string { return commitHoldParams(f.Times) }

// Validate wants times >= 0 and a positive hold.
func (f CommitHoldPostgres) Validate() error {
	return invalid(f, validTimes(f.Times), validHold(f.Hold))
}

// OnStore is the held COMMIT of store's protocol (StoreBound).
func (f CommitHoldPostgres) OnStore(store string) Fault {
	if store == StoreMySQL {
		return CommitHoldMySQL(f)
	}
	return f
}

func (f CommitHoldPostgres) apply(id string, _ int64) applied {
	return applyCommitHold(id, f.Times, f.Hold, pgCommitHoldToxicType)
}
