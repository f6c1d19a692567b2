package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// relay runs rounds: a claim, then one delivery transaction for it.
type relay struct {
	s        settings
	db       *outbox
	queues   *queueClient
	log      *log.Logger
	stopping atomic.Bool
}

// round claims a batch and delivers it; it returns how many rows it
// claimed. A claim made while a stop was asked is given back instead.
func (r *relay) round(ctx context.Context) int {
	c, err := r.db.claim(ctx)
	if err != nil {
		r.log.Printf("%v", err)
		return 0
	}
	if len(c.rows) == 0 {
		return 0
	}
	if r.stopping.Load() {
		if err := r.db.release(ctx, c); err != nil {
			r.log.Printf("release: %v (the claim runs out with its lease)", err)
		} else {
			r.log.Printf("released %d claimed rows", len(c.rows))
		}
		return len(c.rows)
	}
	r.deliver(ctx, c)
	return len(c.rows)
}

// deliver runs the delivery transaction, again on a lock conflict met
// before anything went to Redis. When the transaction is lost after the
// publish (a conflict, a dropped connection, a lost COMMIT reply, a session
// the server ended), the verdicts are written again in a transaction of
// their own, under the same fence: rows published stay published.
func (r *relay) deliver(ctx context.Context, c claim) {
	var v verdicts
	var err error
	for try := 1; try <= 3; try++ {
		v = verdicts{}
		if err = r.deliverTx(ctx, c, &v); err == nil || v.publishing || !isConflict(err) {
			break
		}
		time.Sleep(time.Duration(try*15) * time.Millisecond)
	}
	if err == nil {
		return
	}
	if !v.publishing || v.empty() {
		r.log.Printf("delivery of %d rows: %v (their lease runs out and they are claimed again)", len(c.rows), err)
		return
	}
	if err2 := r.db.settleAlone(ctx, c.token, &v); err2 != nil {
		r.log.Printf("delivery of %d rows: %v; settling again: %v (their lease runs out; a re-add finds the job)", len(c.rows), err, err2)
		return
	}
	r.log.Printf("delivery of %d rows: %v; settled in a second transaction", len(c.rows), err)
}

// lockSQL takes the row locks of the claim's rows that are still its own
// (the token, leased, the lease not run out): while the transaction holds
// them, no claim can take them over (SKIP LOCKED passes them by).
func (r *relay) lockSQL() string {
	if r.s.bug == bugUnfencedFinalize {
		return "SELECT id FROM relay_outbox WHERE id = ANY($1::bigint[]) FOR UPDATE"
	}
	return "SELECT id FROM relay_outbox WHERE id = ANY($1::bigint[])" + r.db.fence(2) +
		" AND locked_until > clock_timestamp() FOR UPDATE"
}

// deliverTx is one transaction: lock what is still held, add the jobs,
// write the verdicts, commit. The server ends the session when it idles in
// the transaction past idleLimit (a stopped process), which releases the
// locks before the lease ends.
func (r *relay) deliverTx(ctx context.Context, c claim, v *verdicts) error {
	ctx, cancel := context.WithTimeout(ctx, r.s.publishWait+4*r.s.statementLimit())
	defer cancel()
	tx, err := r.db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, "SELECT set_config('idle_in_transaction_session_timeout', $1, true), set_config('statement_timeout', $2, true)",
		ms(r.s.idleLimit()), ms(r.s.statementLimit())); err != nil {
		return fmt.Errorf("session limits: %w", err)
	}
	args := []any{idsOf(c.rows)}
	if r.s.bug != bugUnfencedFinalize {
		args = append(args, c.token)
	}
	held, err := lockedIDs(ctx, tx, r.lockSQL(), args...)
	if err != nil {
		return fmt.Errorf("lock the claim's rows: %w", err)
	}
	var rows []row
	for _, x := range c.rows {
		if held[x.id] {
			rows = append(rows, x)
		}
	}
	if len(rows) < len(c.rows) {
		r.log.Printf("%d of %d claimed rows are no longer this claim's", len(c.rows)-len(rows), len(c.rows))
	}
	r.judge(ctx, rows, v)
	if v.empty() {
		return nil
	}
	if _, err := tx.Exec(ctx, shrinkIdleSQL, idsOf(rows)); err != nil {
		return fmt.Errorf("session limits: %w", err)
	}
	if err := r.db.settle(ctx, tx, c.token, v); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// shrinkIdleSQL sets, for the rest of the delivery, an idle limit that
// ends the session before the first lease of its rows ends (less a margin,
// 50 ms at least): a process stopped between its settle and its COMMIT
// loses its transaction before a claim may take the rows over.
const shrinkIdleSQL = `SELECT set_config('idle_in_transaction_session_timeout',
  GREATEST(50, floor(extract(epoch FROM min(locked_until) - clock_timestamp()) * 1000) - 150)::bigint::text, true)
FROM relay_outbox WHERE id = ANY($1::bigint[])`

func lockedIDs(ctx context.Context, tx pgx.Tx, sql string, args ...any) (map[int64]bool, error) {
	rs, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rs, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// judge validates the rows, adds the valid ones' jobs and sorts every row
// into v. A queue outside OUTBOX_QUEUES, or a payload that is not a JSON
// object, is poison: dead at once, nothing added.
func (r *relay) judge(ctx context.Context, rows []row, v *verdicts) {
	var good []row
	for _, x := range rows {
		if why := poison(r.s, x); why != "" {
			v.deadIDs, v.deadWhy = append(v.deadIDs, x.id), append(v.deadWhy, why)
			continue
		}
		good = append(good, x)
	}
	if len(good) == 0 {
		return
	}
	v.publishing = true
	var last []row
	var lastErrs []error
	for i, err := range r.queues.add(ctx, good) {
		x := good[i]
		switch {
		case err == nil:
			v.done = append(v.done, x.id)
		case x.attempts < r.s.maxAttempts:
			v.retryIDs, v.retryWhy = append(v.retryIDs, x.id), append(v.retryWhy, clip(err.Error()))
		default:
			last, lastErrs = append(last, x), append(lastErrs, err)
		}
	}
	r.giveUp(ctx, last, lastErrs, v)
}

// giveUp settles rows whose last attempt failed. The add may have run with
// its reply lost: a row whose job is in Redis is done; one Redis says
// nothing about stays leased, for a later claim to decide; the rest are
// dead.
func (r *relay) giveUp(ctx context.Context, rows []row, errs []error, v *verdicts) {
	if len(rows) == 0 {
		return
	}
	found := make([]bool, len(rows))
	asked := make([]error, len(rows))
	if r.s.bug != bugNoJobID { // without a jobId there is nothing to look for
		found, asked = r.queues.present(ctx, rows)
	}
	for i, x := range rows {
		switch {
		case asked[i] != nil:
			r.log.Printf("row %d: last attempt failed (%v), and Redis did not say whether its job is there (%v): left to its lease", x.id, errs[i], asked[i])
		case found[i]:
			v.done = append(v.done, x.id)
		default:
			why := "gave up after " + strconv.Itoa(x.attempts) + " attempts: " + errs[i].Error()
			v.deadIDs, v.deadWhy = append(v.deadIDs, x.id), append(v.deadWhy, clip(why))
		}
	}
}

// poison says why a row can never be published, or "".
func poison(s settings, x row) string {
	if !s.queues[x.queue] {
		return "queue " + x.queue + " is not in OUTBOX_QUEUES"
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(x.payload), &obj); err != nil {
		return "payload is not a JSON object: " + clip(err.Error())
	}
	return ""
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

func clip(s string) string {
	if len(s) > 500 {
		return s[:500]
	}
	return s
}
