package faultproxy

import "fmt"

// SQLError answers a share of the client's locking statements with a MySQL
// deadlock (1213) or lock wait timeout (1205) instead of running them
// (doc.go, "MySQL: lock conflicts"; the state is in mysql_error.go).
type SQLError struct {
	Probability float64 // that a locking statement is refused; 0 means 1
}

// Kind is "sql-error".
func (SQLError) Kind() Kind { return "sql-error" }

// String is "sql-error", with the share of statements refused.
func (f SQLError) String() string { return fmt.Sprintf("sql-error p=%v", certain(f.Probability)) }

func (SQLError) protocol() string { return "mysql" }

// Params records probability; the nemesis adds refused and answered at the end.
func (f SQLError) Params() map[string]string {
	p := map[string]string{}
	if f.Probability > 0 {
		p["probability"] = fmt.Sprint(f.Probability)
	}
	return p
}

// Validate wants a probability within [0, 1].
func (f SQLError) Validate() error { return invalid(f, validProbability(f.Probability)) }

func (f SQLError) apply(id string, seed int64) applied {
	s := newSQLError(seed, certain(f.Probability))
	key := sqlErrors.register(s)
	attrs := map[string]string{"fault": key}
	// The answerer first (downstream), so that it is on every connection
	// before the refuser (upstream) replaces a statement.
	return applied{
		toxics: []toxicSpec{
			{Name: id + "-answer", Type: mysqlAnswerToxicType, Stream: Downstream.stream(), Attributes: attrs},
			{Name: id + "-refuse", Type: mysqlRefuseToxicType, Stream: Upstream.stream(), Attributes: attrs},
		},
		state:   s,
		release: func() { sqlErrors.unregister(key) },
	}
}
