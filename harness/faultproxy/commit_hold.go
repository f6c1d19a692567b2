package faultproxy

import (
	"fmt"
	"time"
)

// CommitHoldMySQL holds a client's COMMIT back for Hold, with everything
// the client sends after it, while the transaction keeps its row locks
// (doc.go, "MySQL: a held COMMIT"; the filter is in mysql_commit_hold.go).
type CommitHoldMySQL struct {
	Times int           // COMMITs to hold before passing everything; 0 means once
	Hold  time.Duration // how long each is held, > 0
}

// Kind is "commit-hold-mysql".
func (CommitHoldMySQL) Kind() Kind { return "commit-hold-mysql" }

// String is "commit-hold-mysql <Hold>".
func (f CommitHoldMySQL) String() string { return "commit-hold-mysql " + f.Hold.String() }

func (CommitHoldMySQL) protocol() string { return "mysql" }

// Params records times.
func (f CommitHoldMySQL) Params() map[string]string { return commitHoldParams(f.Times) }

func commitHoldParams(times int) map[string]string {
	p := map[string]string{}
	if times > 0 {
		p["times"] = fmt.Sprint(times)
	}
	return p
}

// Validate wants times >= 0 and a positive hold.
func (f CommitHoldMySQL) Validate() error {
	return invalid(f, validTimes(f.Times), validHold(f.Hold))
}

// OnStore is the held COMMIT of store's protocol (StoreBound): on
// PostgreSQL, CommitHoldPostgres with the same settings.
func (f CommitHoldMySQL) OnStore(store string) Fault {
	if store == StorePostgres {
		return CommitHoldPostgres(f)
	}
	return f
}

func (f CommitHoldMySQL) apply(id string, _ int64) applied {
	return applyCommitHold(id, f.Times, f.Hold, commitHoldToxicType)
}

// applyCommitHold registers a commit-hold fault's state and names its one
// (upstream) toxic, of type toxic.
func applyCommitHold(id string, times int, hold time.Duration, toxic string) applied {
	c := newCommitHold(once(times), hold)
	key := commitHolds.register(c)
	return applied{
		toxics:  []toxicSpec{{Name: id + "-hold", Type: toxic, Stream: Upstream.stream(), Attributes: map[string]string{"fault": key}}},
		state:   c,
		release: func() { commitHolds.unregister(key) },
	}
}

// validHold wants a positive hold.
func validHold(hold time.Duration) error {
	if hold <= 0 {
		return fmt.Errorf("hold %v: want > 0, how long a COMMIT is held back", hold)
	}
	return nil
}
