package faultproxy

// SQLReadOnly answers every write of the client (INSERT, UPDATE, DELETE;
// on PostgreSQL a locking read too) with the error of a server in
// read-only mode instead of running it: a failover's old primary, or a
// replica promoted late. On MySQL 1290 (--read-only, super_read_only), on
// PostgreSQL SQLSTATE 25006 (read_only_sql_transaction). Reads run. It
// shares sql-error's toxics and state (mysql_error.go; doc.go, "MySQL:
// read-only").
type SQLReadOnly struct {
	// Store is the protocol of the link, StoreMySQL (or "") or
	// StorePostgres; the nemesis sets it (StoreBound).
	Store string
}

// Kind is "sql-read-only", on every store: the store is a param.
func (SQLReadOnly) Kind() Kind { return "sql-read-only" }

// String is "sql-read-only".
func (SQLReadOnly) String() string { return "sql-read-only" }

func (f SQLReadOnly) protocol() string { return SQLError{Store: f.Store}.protocol() }

// Params records the store when it is PostgreSQL; the nemesis adds
// refused and answered at the end.
func (f SQLReadOnly) Params() map[string]string { return SQLError{Store: f.Store}.Params() }

// Validate wants a known store.
func (f SQLReadOnly) Validate() error { return invalid(f, ValidStore(f.Store)) }

// OnStore is the fault for a link to store (StoreBound).
func (f SQLReadOnly) OnStore(store string) Fault {
	f.Store = store
	return f
}

func (f SQLReadOnly) apply(id string, seed int64) applied {
	return SQLError{Store: f.Store}.applyState(id, seed, true)
}
