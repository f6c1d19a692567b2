package faultproxy

import "fmt"

// SQLError answers a share of the client's locking statements with a lock
// conflict error instead of running them: on MySQL a deadlock (1213) or a
// lock wait timeout (1205), on PostgreSQL a deadlock (40P01), a
// serialization failure (40001) or a lock timeout (55P03) (doc.go, "MySQL:
// lock conflicts" and "PostgreSQL: lock conflicts"; the state is in
// mysql_error.go).
type SQLError struct {
	Probability float64 // that a locking statement is refused; 0 means 1
	// Store is the protocol of the link, StoreMySQL (or "") or
	// StorePostgres; the nemesis sets it (StoreBound).
	Store string
}

// Kind is "sql-error", on every store: the store is a param.
func (SQLError) Kind() Kind { return "sql-error" }

// String is "sql-error", with the share of statements refused.
func (f SQLError) String() string { return fmt.Sprintf("sql-error p=%v", certain(f.Probability)) }

func (f SQLError) protocol() string {
	if f.Store == StorePostgres {
		return StorePostgres
	}
	return StoreMySQL
}

// Params records probability, and the store when it is PostgreSQL; the
// nemesis adds refused and answered at the end.
func (f SQLError) Params() map[string]string {
	p := map[string]string{}
	if f.Probability > 0 {
		p["probability"] = fmt.Sprint(f.Probability)
	}
	if f.Store == StorePostgres {
		p["store"] = f.Store
	}
	return p
}

// Validate wants a probability within [0, 1] and a known store.
func (f SQLError) Validate() error {
	return invalid(f, validProbability(f.Probability), ValidStore(f.Store))
}

// OnStore is the fault for a link to store (StoreBound).
func (f SQLError) OnStore(store string) Fault {
	f.Store = store
	return f
}

func (f SQLError) apply(id string, seed int64) applied { return f.applyState(id, seed, false) }

// applyState is apply, refusing writes with the read-only error when
// readOnly (sql-read-only), else locking statements with lock conflicts.
func (f SQLError) applyState(id string, seed int64, readOnly bool) applied {
	s := newSQLError(seed, certain(f.Probability), f.Store)
	s.readOnly = readOnly
	key := sqlErrors.register(s)
	attrs := map[string]string{"fault": key}
	answer, refuse := mysqlAnswerToxicType, mysqlRefuseToxicType
	if f.Store == StorePostgres {
		answer, refuse = pgAnswerToxicType, pgRefuseToxicType
	}
	// The answerer first (downstream), so that it is on every connection
	// before the refuser (upstream) replaces a statement.
	return applied{
		toxics: []toxicSpec{
			{Name: id + "-answer", Type: answer, Stream: Downstream.stream(), Attributes: attrs},
			{Name: id + "-refuse", Type: refuse, Stream: Upstream.stream(), Attributes: attrs},
		},
		state:   s,
		release: func() { sqlErrors.unregister(key) },
	}
}
