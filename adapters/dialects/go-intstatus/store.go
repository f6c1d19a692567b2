package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The message states (outbox_messages.state).
const (
	stateNew      = 0
	stateInFlight = 1
	stateSent     = 2
	stateDead     = 3
)

// message is one claimed row.
type message struct {
	id      []byte // 16 bytes
	topic   string
	payload string
	tries   int // counting this claim
}

// store is the outbox table, every statement on the database clock.
type store struct {
	db    *sql.DB
	cfg   config
	owner string
}

// claimDue picks new rows that are due, in due order; claimExpired picks
// rows whose owner let the lease run out. The plant claims-sent writes the
// first with "state <> 1", which also picks sent and dead rows.
const (
	claimDue = "SELECT id, topic, payload, tries FROM outbox_messages WHERE state = 0 AND next_try_at <= NOW(6) " +
		"ORDER BY next_try_at LIMIT ? FOR UPDATE SKIP LOCKED"
	claimDueClaimsSent = "SELECT id, topic, payload, tries FROM outbox_messages WHERE state <> 1 AND next_try_at <= NOW(6) " +
		"ORDER BY next_try_at LIMIT ? FOR UPDATE SKIP LOCKED"
	claimExpired = "SELECT id, topic, payload, tries FROM outbox_messages WHERE state = 1 AND lease_until < NOW(6) " +
		"ORDER BY lease_until LIMIT ? FOR UPDATE SKIP LOCKED"
)

// claim takes up to n rows in one short transaction: the due ones, then
// expired claims, each locked with SKIP LOCKED and marked in flight for
// this owner until NOW(6) + lease.
func (s *store) claim(ctx context.Context, n int) ([]message, error) {
	var out []message
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		due := claimDue
		if s.cfg.plant == plantClaimsSent {
			due = claimDueClaimsSent
		}
		for _, q := range []string{due, claimExpired} {
			if len(out) == n {
				break
			}
			got, err := selectMessages(ctx, tx, q, n-len(out))
			if err != nil {
				return err
			}
			out = append(out, got...)
		}
		if len(out) == 0 {
			return nil
		}
		ids, args := idList(out)
		_, err := tx.ExecContext(ctx, "UPDATE outbox_messages SET state = 1, owner = ?, lease_until = NOW(6) + INTERVAL ? MICROSECOND, "+
			"tries = tries + 1 WHERE id IN ("+ids+")", append([]any{s.owner, s.cfg.lease.Microseconds()}, args...)...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	for i := range out {
		out[i].tries++
	}
	return out, nil
}

func selectMessages(ctx context.Context, tx *sql.Tx, q string, n int) ([]message, error) {
	rows, err := tx.QueryContext(ctx, q, n)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var out []message
	for rows.Next() {
		var m message
		if err := rows.Scan(&m.id, &m.topic, &m.payload, &m.tries); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// outcomes is what a round settles: messages sent, messages to retry (by
// error text), messages dead (by error text).
type outcomes struct {
	sent  []message
	retry map[string][]message
	dead  map[string][]message
}

func newOutcomes() *outcomes {
	return &outcomes{retry: map[string][]message{}, dead: map[string][]message{}}
}

// settle writes a round's outcomes in one transaction, each write fenced:
// only rows still in flight for this owner change.
func (s *store) settle(ctx context.Context, o *outcomes) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if len(o.sent) > 0 {
			if err := s.fenced(ctx, tx, "state = 2, lease_until = NULL, sent_at = NOW(6), error = NULL", nil, o.sent); err != nil {
				return err
			}
		}
		for reason, ms := range o.retry {
			if err := s.retry(ctx, tx, reason, ms); err != nil {
				return err
			}
		}
		for reason, ms := range o.dead {
			if err := s.fenced(ctx, tx, "state = 3, lease_until = NULL, error = ?", []any{clip(reason)}, ms); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	return nil
}

// retry puts messages back to new with a backoff of base * 2^(tries-1),
// capped, less up to a quarter of jitter, from NOW(6). The plant
// retry-as-dead writes state 3 here instead of 0.
func (s *store) retry(ctx context.Context, tx *sql.Tx, reason string, ms []message) error {
	state := stateNew
	if s.cfg.plant == plantRetryAsDead {
		state = stateDead
	}
	set := fmt.Sprintf("state = %d, owner = NULL, lease_until = NULL, error = ?, "+
		"next_try_at = NOW(6) + INTERVAL FLOOR(LEAST(? * POW(2, LEAST(GREATEST(tries, 1), 40) - 1), ?) * (1 - RAND() / 4)) MICROSECOND", state)
	return s.fenced(ctx, tx, set, []any{clip(reason), s.cfg.backoffBase.Microseconds(), s.cfg.backoffMax.Microseconds()}, ms)
}

// release gives claims back untouched by a publish, at once and with the
// try returned (a graceful stop is no failure of theirs).
func (s *store) release(ctx context.Context, ms []message) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.fenced(ctx, tx, "state = 0, owner = NULL, lease_until = NULL, tries = GREATEST(tries - 1, 0)", nil, ms)
	})
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	return nil
}

// fenced runs UPDATE ... SET set over ms, guarded by owner and state.
func (s *store) fenced(ctx context.Context, tx *sql.Tx, set string, setArgs []any, ms []message) error {
	ids, idArgs := idList(ms)
	args := append(append(append([]any{}, setArgs...), idArgs...), s.owner)
	_, err := tx.ExecContext(ctx, "UPDATE outbox_messages SET "+set+" WHERE id IN ("+ids+") AND owner = ? AND state = 1", args...)
	return err
}

// inTx runs fn in a READ COMMITTED transaction bounded by dbTimeout, and
// again (three times in all) when MySQL answers with a deadlock or a lock
// wait timeout, which roll the transaction back.
func (s *store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	var err error
	for try := 0; try < 3; try++ {
		if err = s.once(ctx, fn); !lockConflict(err) {
			return err
		}
		time.Sleep(time.Duration(10*(try+1)) * time.Millisecond)
	}
	return err
}

func (s *store) once(ctx context.Context, fn func(*sql.Tx) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.dbTimeout())
	defer cancel()
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// lockConflict tells a deadlock (1213) or lock wait timeout (1205).
func lockConflict(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// idList is "?, ?, ..." and the ids of ms.
func idList(ms []message) (string, []any) {
	args := make([]any, len(ms))
	for i, m := range ms {
		args[i] = m.id
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(ms)), ", "), args
}

// clip keeps an error text short enough to read.
func clip(s string) string {
	if len(s) > 1000 {
		return s[:1000]
	}
	return s
}
