package runner

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/store"
)

// mysqlDatabase is a run's database on the environment's MySQL server.
type mysqlDatabase struct {
	env   env.Env
	name  string
	admin *sql.DB
	// users is each slot's own MySQL user; empty when the instances share
	// the harness's (createSlotUsers).
	users   map[string]slotUser
	writers map[string]string
	log     func(format string, args ...any)
}

// slotUser is the MySQL account one slot's instances connect as.
type slotUser struct {
	name, pass string
}

func (d *mysqlDatabase) store() store.Store { return store.MySQL }

func (d *mysqlDatabase) upstream() string { return d.env.MySQLAddr() }

func (d *mysqlDatabase) slotWriters() map[string]string { return d.writers }

// open creates the run's database and the slots' users, and returns the
// harness's connection to the database; closers undo both.
func (d *mysqlDatabase) open(ctx context.Context, slots []string, closers *[]func() error) (*sql.DB, error) {
	admin, err := sql.Open("mysql", d.env.MySQLDSN(""))
	if err != nil {
		return nil, fmt.Errorf("open mysql: %w", err)
	}
	d.admin = admin
	*closers = append(*closers, admin.Close)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+d.name+"`"); err != nil {
		return nil, fmt.Errorf("create database %s: %w", d.name, err)
	}
	*closers = append(*closers, func() error {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := admin.ExecContext(dctx, "DROP DATABASE IF EXISTS `"+d.name+"`")
		return err
	})
	if err := d.createSlotUsers(ctx, slots, closers); err != nil {
		return nil, err
	}
	db, err := sql.Open("mysql", d.env.MySQLDSN(d.name))
	if err != nil {
		return nil, fmt.Errorf("open mysql %s: %w", d.name, err)
	}
	*closers = append(*closers, db.Close)
	return db, nil
}

// slotVars are the contract's MySQL variables for one slot, reached
// through its fault-proxy link at addr, as the slot's own user when it has
// one.
func (d *mysqlDatabase) slotVars(slot, addr string) (map[string]string, error) {
	cfg, err := mysql.ParseDSN(d.env.MySQLDSN(d.name))
	if err != nil {
		return nil, fmt.Errorf("environment DSN: %w", err)
	}
	if u, ok := d.users[slot]; ok {
		cfg.User, cfg.Passwd = u.name, u.pass
	}
	cfg.Addr, cfg.Net = addr, "tcp"
	return mysqlVars(cfg, d.name), nil
}

// directVars are the contract's MySQL variables straight to the server, as
// the harness's own user (the team's producer command).
func (d *mysqlDatabase) directVars() (map[string]string, error) {
	cfg, err := mysql.ParseDSN(d.env.MySQLDSN(d.name))
	if err != nil {
		return nil, fmt.Errorf("environment DSN: %w", err)
	}
	return mysqlVars(cfg, d.name), nil
}

// mysqlVars is OUTBOX_MYSQL_DSN and OUTBOX_MYSQL_URL for cfg.
func mysqlVars(cfg *mysql.Config, db string) map[string]string {
	cfg.ParseTime = true
	u := url.URL{Scheme: "mysql", Host: cfg.Addr, Path: "/" + db, User: url.UserPassword(cfg.User, cfg.Passwd)}
	if cfg.Passwd == "" {
		u.User = url.User(cfg.User)
	}
	return map[string]string{"OUTBOX_MYSQL_DSN": cfg.FormatDSN(), "OUTBOX_MYSQL_URL": u.String()}
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
func (d *mysqlDatabase) createSlotUsers(ctx context.Context, slots []string, closers *[]func() error) error {
	cfg, err := mysql.ParseDSN(d.env.MySQLDSN(""))
	if err != nil {
		return fmt.Errorf("environment DSN: %w", err)
	}
	if name := d.env.Name(); name != "local" {
		d.log("setup: instances share MySQL user %s, so the history records no writer (per-slot users are made only on the local environment's private server, not on %s)", cfg.User, name)
		return nil
	}
	tag := randomHex(3)
	users := map[string]slotUser{}
	for _, slot := range slots {
		u := slotUser{name: "oc" + tag + "_" + slot}
		if cfg.Passwd != "" {
			u.pass = "Oc_" + randomHex(12)
		}
		if err := createUser(ctx, d.admin, u, d.name); err != nil {
			dropUsers(d.admin, users)
			dropUsers(d.admin, map[string]slotUser{slot: u})
			d.log("setup: instances share MySQL user %s, so the history records no writer (%v)", cfg.User, err)
			return nil
		}
		users[slot] = u
	}
	d.users = users
	d.writers = map[string]string{cfg.User: history.WriterHarness}
	for slot, u := range users {
		d.writers[u.name] = slot
	}
	*closers = append(*closers, func() error { dropUsers(d.admin, users); return nil })
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

// readOnly is the nemesis's StoreReadOnly switch: SET GLOBAL read_only on
// the harness's own server, which binds the slots' accounts (not the
// harness's root, so the workload and the consumer write on). nil unless
// the server is the local environment's and every slot has its account; a
// closer clears read_only whatever ends the run.
func (d *mysqlDatabase) readOnly(closers *[]func() error) func(ctx context.Context, on bool) error {
	if d.env.MySQL() == nil || len(d.users) == 0 {
		return nil
	}
	set := func(ctx context.Context, on bool) error {
		v := "OFF"
		if on {
			v = "ON"
		}
		if _, err := d.admin.ExecContext(ctx, "SET GLOBAL read_only = "+v); err != nil {
			return fmt.Errorf("SET GLOBAL read_only = %s: %w", v, err)
		}
		return nil
	}
	*closers = append(*closers, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return set(ctx, false)
	})
	return set
}
