package runner

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/store"
)

// database is a run's database on its store's server: the database the run
// creates, the accounts its slots connect as, and the contract's variables
// pointing at it (mysqldb.go, postgresdb.go).
type database interface {
	store() store.Store
	// open creates the database and the slots' accounts and returns the
	// harness's own connection to it; what it made is undone by closers.
	open(ctx context.Context, slots []string, closers *[]func() error) (*sql.DB, error)
	// upstream is the server address the slots' fault-proxy links reach.
	upstream() string
	// slotVars are the contract's database variables for slot, through its
	// link at addr; directVars straight to the server, as the harness.
	slotVars(slot, addr string) (map[string]string, error)
	directVars() (map[string]string, error)
	// slotWriters maps each account the triggers may record to a slot, or
	// to history.WriterHarness; empty when the slots share an account.
	slotWriters() map[string]string
}

// storeAdapter is an adapter whose outbox is not in MySQL (a manifest's
// store key).
type storeAdapter interface {
	StoreName() string
}

// storeOf is the adapter's store.
func storeOf(a any) (store.Store, error) {
	name := ""
	if sa, ok := a.(storeAdapter); ok {
		name = sa.StoreName()
	}
	return store.Named(name)
}

// openDatabase creates the run's database on its store, applies the
// adapter's schema and installs the history triggers.
func (r *session) openDatabase(ctx context.Context) error {
	st, err := storeOf(r.o.Adapter)
	if err != nil {
		return err
	}
	name := "oc_" + strings.ReplaceAll(r.o.Scenario.Name, "-", "_") + "_" + randomHex(4)
	switch st.Name() {
	case store.NameMySQL:
		r.dbs = &mysqlDatabase{env: r.o.Env, name: name, log: r.log}
	case store.NamePostgres:
		r.dbs = &postgresDatabase{env: r.o.Env, name: name}
	default:
		return fmt.Errorf("store %s: the runner cannot open it", st.Name())
	}
	db, err := r.dbs.open(ctx, slots(r.o.Scenario.Instances), &r.closers)
	if err != nil {
		return err
	}
	r.db = db
	if err := r.applyZones(ctx); err != nil {
		return err
	}
	m := r.o.Adapter.Schema()
	for _, stmt := range m.DDL {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("apply schema of %s: %w", r.o.Adapter.Name(), err)
		}
	}
	if err := r.narrowLastError(ctx, st.Name(), m); err != nil {
		return err
	}
	if err := r.wholeSeconds(ctx, st, m); err != nil {
		return err
	}
	if err := r.readPrecision(ctx, st, m); err != nil {
		return err
	}
	if err := st.InstallTriggers(ctx, db, m); err != nil {
		return fmt.Errorf("install history triggers: %w", err)
	}
	return nil
}

// applyZones sets the scenario's server time zone before any session of
// the run opens (the harness's pool has none yet: only the schema below
// and later phases open them), and records what it applied.
func (r *session) applyZones(ctx context.Context) error {
	z := r.o.Scenario.Zones
	if z.IsZero() {
		return nil
	}
	md, ok := r.dbs.(*mysqlDatabase)
	if !ok {
		return fmt.Errorf("time zones: %s", serverZoneMissing(r.o.Env, true))
	}
	global, offset, err := applyServerZone(ctx, md.admin, r.db, z.Server, &r.closers)
	if err != nil {
		return fmt.Errorf("time zones: %w", err)
	}
	if r.zones, err = zonesApplied(z, global, offset, time.Now()); err != nil {
		return fmt.Errorf("time zones: %w", err)
	}
	r.log("setup: the server's time zone is %s (a new session's NOW() is UTC%s), the instances' TZ %s (UTC%s)",
		r.zones.Server, r.zones.ServerOffset, r.zones.Process, r.zones.ProcessOffset)
	return nil
}
