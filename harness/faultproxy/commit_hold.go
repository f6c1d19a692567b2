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
func (f CommitHoldMySQL) Params() map[string]string {
	p := map[string]string{}
	if f.Times > 0 {
		p["times"] = fmt.Sprint(f.Times)
	}
	return p
}

// Validate wants times >= 0 and a positive hold.
func (f CommitHoldMySQL) Validate() error {
	var hold error
	if f.Hold <= 0 {
		hold = fmt.Errorf("hold %v: want > 0, how long a COMMIT is held back", f.Hold)
	}
	return invalid(f, validTimes(f.Times), hold)
}

func (f CommitHoldMySQL) apply(id string, _ int64) applied {
	c := newCommitHold(once(f.Times), f.Hold)
	key := commitHolds.register(c)
	return applied{
		toxics:  []toxicSpec{{Name: id + "-hold", Type: commitHoldToxicType, Stream: Upstream.stream(), Attributes: map[string]string{"fault": key}}},
		state:   c,
		release: func() { commitHolds.unregister(key) },
	}
}
