package runner

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// slotUser is the MySQL account one slot's instances connect as.
type slotUser struct {
	name, pass string
}

// createSlotUsers gives every slot its own MySQL user, with all privileges
// on the run's database and nothing else, so the history's triggers record
// which slot wrote each row (observe.AttributeWriters). The password is
// empty when the harness's own account has none (a private server), else
// random. Only on the harness's own private server (the local
// environment): on an external server, or a container, a new account is the
// operator's to allow, and its password may need an authentication plugin
// the dispatcher's driver cannot speak over a plain link. There, and
// wherever creating users fails, every instance keeps the harness's user and
// the history records no writer; that is said, not an error.
func (r *session) createSlotUsers(ctx context.Context, admin *sql.DB) error {
	cfg, err := mysql.ParseDSN(r.o.Env.MySQLDSN(""))
	if err != nil {
		return fmt.Errorf("environment DSN: %w", err)
	}
	if name := r.o.Env.Name(); name != "local" {
		r.log("setup: instances share MySQL user %s, so the history records no writer (per-slot users are made only on the local environment's private server, not on %s)", cfg.User, name)
		return nil
	}
	tag := randomHex(3)
	users := map[string]slotUser{}
	for _, slot := range slots(r.o.Scenario.Instances) {
		u := slotUser{name: "oc" + tag + "_" + slot}
		if cfg.Passwd != "" {
			u.pass = "Oc_" + randomHex(12)
		}
		if err := createUser(ctx, admin, u, r.dbName); err != nil {
			dropUsers(admin, users)
			dropUsers(admin, map[string]slotUser{slot: u})
			r.log("setup: instances share MySQL user %s, so the history records no writer (%v)", cfg.User, err)
			return nil
		}
		users[slot] = u
	}
	r.slotUsers = users
	r.writers = map[string]string{cfg.User: history.WriterHarness}
	for slot, u := range users {
		r.writers[u.name] = slot
	}
	r.closers = append(r.closers, func() error { dropUsers(admin, users); return nil })
	return nil
}

// createUser creates u with all privileges on database db.
func createUser(ctx context.Context, admin *sql.DB, u slotUser, db string) error {
	acct := quoteText(u.name) + "@'%'"
	if _, err := admin.ExecContext(ctx, "CREATE USER "+acct+" IDENTIFIED BY "+quoteText(u.pass)); err != nil {
		return fmt.Errorf("create user %s: %w", u.name, err)
	}
	if _, err := admin.ExecContext(ctx, "GRANT ALL PRIVILEGES ON `"+db+"`.* TO "+acct); err != nil {
		return fmt.Errorf("grant %s on %s: %w", u.name, db, err)
	}
	return nil
}

// dropUsers removes the slot users (best effort: a user left behind on a
// private server goes with the server).
func dropUsers(admin *sql.DB, users map[string]slotUser) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, u := range users {
		_, _ = admin.ExecContext(ctx, "DROP USER IF EXISTS "+quoteText(u.name)+"@'%'")
	}
}

// quoteText is s as a MySQL string literal.
func quoteText(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
