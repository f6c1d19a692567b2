package workload

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// settleBudget bounds how long the producer waits for MySQL to come back
// after a lost connection: longer than any restart a scenario makes.
const settleBudget = 90 * time.Second

// settle finishes an event whose transaction lost its connection: once
// MySQL answers again, the event's outbox row (found by lookup: unique per
// event) says the COMMIT landed; with no row the transaction was
// rolled back, and it is written again. A lost connection while settling
// waits and looks again; any other error is returned.
func (p *Producer) settle(ctx context.Context, ev planned) (int64, error) {
	deadline := time.Now().Add(settleBudget)
	for {
		id, err := p.settleOnce(ctx, ev)
		if err == nil || !lostConnection(err) {
			return id, err
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("MySQL did not come back within %s: %w", settleBudget, err)
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		case <-t.C:
		}
	}
}

func (p *Producer) settleOnce(ctx context.Context, ev planned) (int64, error) {
	o := p.cfg.Schema.Outbox
	var id int64
	cond, arg := p.lookup(ev, 1)
	err := p.cfg.DB.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s", p.idSelect(), p.sql.q(o.Table), cond), arg).Scan(&id)
	switch {
	case err == nil && o.IDType != schema.KeyAuto:
		return ev.num, nil
	case err == nil:
		return id, nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, fmt.Errorf("look for the outbox row after a lost connection: %w", err)
	}
	tx, id, err := p.insertOne(ctx, ev)
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback()
		return 0, fmt.Errorf("commit again after a lost connection: %w", err)
	}
	return id, nil
}

// lostConnection tells whether err means the connection to MySQL broke or
// could not be made (a killed or starting server), rather than a statement
// the server refused.
func lostConnection(err error) bool {
	var ne net.Error
	var me *mysql.MySQLError
	switch {
	case err == nil:
		return false
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, mysql.ErrInvalidConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, pgconn.ErrConnClosed), // pgx: a connection its driver closed (the server went away) since the pool handed it out
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &ne):
		return true
	case errors.As(err, &me):
		// 1053 server shutdown in progress, 1927 connection killed (MariaDB).
		return me.Number == 1053 || me.Number == 1927
	}
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce), errors.Is(err, pgconn.ErrConnClosed):
		// ErrConnClosed: a statement on a connection pgx already closed
		// (the COMMIT of a transaction whose server went away).
		return true
	case errors.As(err, &pe):
		// class 08 connection exception; 57P01 admin shutdown, 57P02
		// crash shutdown, 57P03 cannot connect now (starting up).
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	return false
}

// lockConflictAttempts bounds how often commitOne writes an event again
// after a deadlock or lock wait timeout.
const lockConflictAttempts = 5

// lockConflict tells a deadlock or lock wait timeout (MySQL 1213, 1205;
// PostgreSQL 40P01, 55P03) or a serialization failure (40001): the server
// rolled the statement or the transaction back, nothing committed.
func lockConflict(err error) bool {
	var me *mysql.MySQLError
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &me):
		return me.Number == 1213 || me.Number == 1205
	case errors.As(err, &pe):
		return pe.Code == "40P01" || pe.Code == "55P03" || pe.Code == "40001"
	}
	return false
}

// idSelect selects the outbox id as an integer: the database's id, or 0
// for a key the producer chose (the event's number stands in for it).
func (p *Producer) idSelect() string {
	if p.cfg.Schema.Outbox.IDType != schema.KeyAuto {
		return "0"
	}
	return p.sql.q(p.cfg.Schema.Outbox.ID)
}
