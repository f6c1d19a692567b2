package faultproxy

import "fmt"

// LostReplyPostgresCommit lets a COMMIT commit on PostgreSQL and drops its
// reply and every later one on that connection (doc.go, "PostgreSQL: a
// lost COMMIT reply"). It is what LostReplyMySQLCommit becomes on a
// PostgreSQL store (StoreBound).
type LostReplyPostgresCommit struct {
	Times       int     // replies to lose before passing everything; 0 means once
	Probability float64 // that a COMMIT loses its reply; 0 means 1
}

// Kind is "lost-reply-postgres-commit".
func (LostReplyPostgresCommit) Kind() Kind { return "lost-reply-postgres-commit" }

// String is the kind and how many replies it loses, e.g. "... x2".
func (f LostReplyPostgresCommit) String() string {
	return fmt.Sprintf("%s x%d", f.Kind(), once(f.Times))
}

func (LostReplyPostgresCommit) protocol() string { return StorePostgres }

// Params records times and probability; the nemesis adds fired at the end.
func (f LostReplyPostgresCommit) Params() map[string]string {
	return lostReplyParams(f.Times, f.Probability)
}

// Validate wants times >= 0 and a probability within [0, 1].
func (f LostReplyPostgresCommit) Validate() error {
	return invalid(f, validTimes(f.Times), validProbability(f.Probability))
}

// OnStore is the lost COMMIT reply of store's protocol (StoreBound).
func (f LostReplyPostgresCommit) OnStore(store string) Fault {
	if store == StoreMySQL {
		return LostReplyMySQLCommit(f)
	}
	return f
}

// apply adds the dropper alone: no watcher and no marker are needed, as
// the reply itself says it completes a COMMIT.
func (f LostReplyPostgresCommit) apply(id string, seed int64) applied {
	l := newLostReply(seed, once(f.Times), certain(f.Probability))
	key := lostReplies.register(l)
	return applied{
		toxics:  []toxicSpec{{Name: id + "-drop", Type: pgDropToxicType, Stream: Downstream.stream(), Attributes: map[string]string{"fault": key}}},
		state:   l,
		release: func() { lostReplies.unregister(key) },
	}
}
