package faultproxy

import "fmt"

// LostReplyMySQLCommit lets a COMMIT reach MySQL and drops its OK and every
// later reply on that connection (doc.go, "Lost replies").
type LostReplyMySQLCommit struct {
	Times       int     // replies to lose before passing everything; 0 means once
	Probability float64 // that a COMMIT loses its reply; 0 means 1
}

// Kind is "lost-reply-mysql-commit".
func (LostReplyMySQLCommit) Kind() Kind { return "lost-reply-mysql-commit" }

// String is the kind and how many replies it loses, e.g. "... x2".
func (f LostReplyMySQLCommit) String() string { return fmt.Sprintf("%s x%d", f.Kind(), once(f.Times)) }

func (LostReplyMySQLCommit) protocol() string { return "mysql" }

// Params records times and probability; the nemesis adds fired at the end.
func (f LostReplyMySQLCommit) Params() map[string]string {
	return lostReplyParams(f.Times, f.Probability)
}

// Validate wants times >= 0 and a probability within [0, 1].
func (f LostReplyMySQLCommit) Validate() error {
	return invalid(f, validTimes(f.Times), validProbability(f.Probability))
}

func (f LostReplyMySQLCommit) apply(id string, seed int64) applied {
	return applyLostReply(id, newLostReply(seed, once(f.Times), certain(f.Probability)), mysqlWatchToxicType, mysqlDropToxicType)
}

// OnStore is the lost COMMIT reply of store's protocol (StoreBound): on
// PostgreSQL, LostReplyPostgresCommit with the same settings.
func (f LostReplyMySQLCommit) OnStore(store string) Fault {
	if store == StorePostgres {
		return LostReplyPostgresCommit(f)
	}
	return f
}
