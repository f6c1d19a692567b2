package runner

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/store"
)

// postgresDatabase is a run's database on the environment's PostgreSQL
// server: one login role per slot (its password random), so the history
// records which slot wrote each row, as on MySQL.
type postgresDatabase struct {
	env   env.Env
	name  string
	pg    *env.Postgres
	roles map[string]string // slot -> role
	pass  map[string]string // role -> password
}

func (d *postgresDatabase) store() store.Store { return store.Postgres }

func (d *postgresDatabase) upstream() string { return d.pg.Addr() }

func (d *postgresDatabase) slotWriters() map[string]string {
	out := map[string]string{d.pg.User(): history.WriterHarness}
	for slot, role := range d.roles {
		out[role] = slot
	}
	return out
}

// open starts (or reaches) the environment's PostgreSQL, creates the run's
// database and the slots' roles, and returns the admin's connection to it.
func (d *postgresDatabase) open(ctx context.Context, slots []string, closers *[]func() error) (*sql.DB, error) {
	pg, err := d.env.Postgres(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	d.pg = pg
	if err := pg.CreateDatabase(ctx, d.name); err != nil {
		return nil, err
	}
	d.roles, d.pass = map[string]string{}, map[string]string{}
	*closers = append(*closers, d.drop)
	tag := randomHex(3)
	for _, slot := range slots {
		role, pw := "oc"+tag+"_"+slot, "oc_"+randomHex(12)
		if err := pg.CreateRole(ctx, role, pw, d.name); err != nil {
			return nil, err
		}
		d.roles[slot], d.pass[role] = role, pw
	}
	db, err := sql.Open("pgx", pg.URL(d.name))
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", d.name, err)
	}
	*closers = append(*closers, db.Close)
	return db, nil
}

// drop removes the database, then the roles (best effort on the roles: a
// role left on a private server goes with the server).
func (d *postgresDatabase) drop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := d.pg.DropDatabase(ctx, d.name)
	for _, role := range d.roles {
		_ = d.pg.DropRole(ctx, role, "")
	}
	return err
}

// slotVars are the contract's PostgreSQL variables for slot, as its role,
// through its link at addr.
func (d *postgresDatabase) slotVars(slot, addr string) (map[string]string, error) {
	role := d.roles[slot]
	return postgresVars(d.pg.RoleURL(addr, d.name, role, d.pass[role]))
}

// directVars are the contract's PostgreSQL variables straight to the
// server, as the harness's admin (the team's producer command).
func (d *postgresDatabase) directVars() (map[string]string, error) {
	return postgresVars(d.pg.URL(d.name))
}

// postgresVars is OUTBOX_POSTGRES_URL and OUTBOX_POSTGRES_DSN (libpq's
// key=value form) for a postgres:// URL.
func postgresVars(raw string) (map[string]string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("postgres URL: %w", err)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return nil, fmt.Errorf("postgres URL host %q: %w", u.Host, err)
	}
	pw, _ := u.User.Password()
	kv := []string{"host=" + host, "port=" + port, "user=" + quoteKV(u.User.Username()), "dbname=" + quoteKV(strings.TrimPrefix(u.Path, "/")), "sslmode=disable"}
	if pw != "" {
		kv = append(kv, "password="+quoteKV(pw))
	}
	return map[string]string{"OUTBOX_POSTGRES_URL": raw, "OUTBOX_POSTGRES_DSN": strings.Join(kv, " ")}, nil
}

// quoteKV quotes a libpq key=value value when it needs it.
func quoteKV(v string) string {
	if v != "" && !strings.ContainsAny(v, ` '\`) {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
