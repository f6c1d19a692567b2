package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// row is one claimed message.
type row struct {
	id        int64
	messageID string // the uuid's text: the BullMQ jobId
	queue     string
	payload   string
	attempts  int // counting this claim
}

// claim is what one claim statement took: its rows and its fencing token.
type claim struct {
	token string
	rows  []row
}

// outbox is relay_outbox on PostgreSQL. Every time it writes is the
// statement's own clock, clock_timestamp(): now() is the transaction's
// start (doc.go, "Clocks").
type outbox struct {
	pool *pgxpool.Pool
	s    settings
}

func openOutbox(s settings) (*outbox, error) {
	cfg, err := pgxpool.ParseConfig(s.postgres)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.postgresVar, err)
	}
	cfg.MaxConns = 3
	cfg.MaxConnIdleTime = time.Minute
	cfg.ConnConfig.ConnectTimeout = max(s.statementLimit(), time.Second)
	cfg.ConnConfig.RuntimeParams["application_name"] = "go-pgskip " + s.me
	cfg.ConnConfig.RuntimeParams["TimeZone"] = "UTC"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg) // connects lazily
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.postgresVar, err)
	}
	return &outbox{pool: pool, s: s}, nil
}

// claimSQL takes up to $1 rows, due new ones and leases that ran out, in id
// order, skipping rows another transaction has locked; it marks them
// leased by $2 under token $3 until clock_timestamp() + $4 microseconds and
// counts the attempt. One statement: its own transaction.
const claimSQL = `
WITH picked AS (
  SELECT id FROM relay_outbox
  WHERE (status = 'new' AND available_at <= clock_timestamp())
     OR (status = 'leased' AND locked_until < clock_timestamp())
  ORDER BY id
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
UPDATE relay_outbox o
SET status = 'leased', locked_by = $2, lease_token = $3::uuid, attempts = o.attempts + 1,
    locked_until = clock_timestamp() + $4::bigint * interval '1 microsecond'
FROM picked
WHERE o.id = picked.id
RETURNING o.id, o.message_id::text, o.queue, o.payload::text, o.attempts`

// claim runs claimSQL, again on a lock conflict.
func (o *outbox) claim(ctx context.Context) (claim, error) {
	c := claim{token: newToken()}
	err := retryConflicts(func() error {
		c.rows = c.rows[:0]
		ctx, cancel := context.WithTimeout(ctx, o.s.statementLimit())
		defer cancel()
		rows, err := o.pool.Query(ctx, claimSQL, o.s.batch, o.s.me, c.token, o.s.lease.Microseconds())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.messageID, &r.queue, &r.payload, &r.attempts); err != nil {
				return err
			}
			c.rows = append(c.rows, r)
		}
		return rows.Err()
	})
	if err != nil {
		return claim{}, fmt.Errorf("claim: %w", err)
	}
	return c, nil
}

// verdicts is what a delivery settles: rows published, rows to try again
// and rows given up, each with its reason.
type verdicts struct {
	done       []int64
	retryIDs   []int64
	retryWhy   []string
	deadIDs    []int64
	deadWhy    []string
	publishing bool // the rows went to Redis (a lost settle means a re-publish)
}

func (v *verdicts) empty() bool { return len(v.done)+len(v.retryIDs)+len(v.deadIDs) == 0 }

// The settle statements. Each is fenced: only rows still leased under this
// claim's token change, whatever the id list says. The plant
// unfenced-finalize writes by id alone (fence below).
const (
	doneSQL = `UPDATE relay_outbox SET status = 'done', published_at = clock_timestamp(),
  locked_until = NULL, lease_token = NULL, last_error = NULL
WHERE id = ANY($1::bigint[])`
	// The backoff: min(base * 2^(attempts-1), max), less up to a quarter of
	// jitter, from the statement's clock ($5 is the clock: clock_timestamp(),
	// or now() under the plant backoff-at-tx-start).
	retrySQL = `UPDATE relay_outbox o SET status = 'new', locked_by = NULL, lease_token = NULL, locked_until = NULL,
  last_error = f.why,
  available_at = %s + (LEAST($3::float8 * power(2, LEAST(GREATEST(o.attempts, 1), 40) - 1), $4::float8)
                       * (1 - random() / 4)) * interval '1 microsecond'
FROM unnest($1::bigint[], $2::text[]) AS f(id, why)
WHERE o.id = f.id`
	deadSQL = `UPDATE relay_outbox o SET status = 'dead', locked_until = NULL, lease_token = NULL, last_error = f.why
FROM unnest($1::bigint[], $2::text[]) AS f(id, why)
WHERE o.id = f.id`
	releaseSQL = `UPDATE relay_outbox SET status = 'new', locked_by = NULL, lease_token = NULL, locked_until = NULL,
  attempts = GREATEST(attempts - 1, 0), last_error = 'released: graceful stop'
WHERE id = ANY($1::bigint[])`
)

// fence is the WHERE clause's tail that keeps a write to the claim's own
// rows, with the token as parameter $n; "" under unfenced-finalize.
func (o *outbox) fence(n int) string {
	if o.s.bug == bugUnfencedFinalize {
		return ""
	}
	return " AND lease_token = $" + strconv.Itoa(n) + "::uuid AND status = 'leased'"
}

// settle writes v inside tx.
func (o *outbox) settle(ctx context.Context, tx pgx.Tx, token string, v *verdicts) error {
	fenced := func(sql string, n int, args ...any) error {
		if o.s.bug != bugUnfencedFinalize {
			args = append(args, token)
		}
		_, err := tx.Exec(ctx, sql+o.fence(n), args...)
		return err
	}
	if len(v.done) > 0 {
		if err := fenced(doneSQL, 2, v.done); err != nil {
			return fmt.Errorf("mark done: %w", err)
		}
	}
	if len(v.retryIDs) > 0 {
		clock := "clock_timestamp()"
		if o.s.bug == bugBackoffTxStart {
			clock = "now()"
		}
		sql := fmt.Sprintf(retrySQL, clock)
		err := fenced(sql, 5, v.retryIDs, v.retryWhy, float64(o.s.backoffBase.Microseconds()), float64(o.s.backoffMax.Microseconds()))
		if err != nil {
			return fmt.Errorf("schedule retries: %w", err)
		}
	}
	if len(v.deadIDs) > 0 {
		if err := fenced(deadSQL, 3, v.deadIDs, v.deadWhy); err != nil {
			return fmt.Errorf("give up: %w", err)
		}
	}
	return nil
}

// settleAlone writes v in a transaction of its own: after a delivery's
// transaction was lost with its rows already published.
func (o *outbox) settleAlone(ctx context.Context, token string, v *verdicts) error {
	return retryConflicts(func() error {
		ctx, cancel := context.WithTimeout(ctx, o.s.statementLimit()*2)
		defer cancel()
		return pgx.BeginTxFunc(ctx, o.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
			return o.settle(ctx, tx, token, v)
		})
	})
}

// release gives a claim back untouched (a graceful stop): due at once, its
// attempt returned.
func (o *outbox) release(ctx context.Context, c claim) error {
	ids := idsOf(c.rows)
	return retryConflicts(func() error {
		ctx, cancel := context.WithTimeout(ctx, o.s.statementLimit())
		defer cancel()
		args := []any{ids}
		if o.s.bug != bugUnfencedFinalize {
			args = append(args, c.token)
		}
		_, err := o.pool.Exec(ctx, releaseSQL+o.fence(2), args...)
		return err
	})
}

func idsOf(rows []row) []int64 {
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	return ids
}

// newToken is a random uuid (version 4), a claim's fencing token.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Lock conflicts PostgreSQL answers with, each of which ends the
// transaction: deadlock_detected, serialization_failure and
// lock_not_available.
var conflictCodes = map[string]bool{"40P01": true, "40001": true, "55P03": true}

func isConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && conflictCodes[pe.Code]
}

// retryConflicts runs fn, and again (three runs in all) while it fails with
// a lock conflict.
func retryConflicts(fn func() error) error {
	var err error
	for try := 1; try <= 3; try++ {
		if err = fn(); !isConflict(err) {
			return err
		}
		time.Sleep(time.Duration(try*15) * time.Millisecond)
	}
	return err
}
