package dispatcher

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"

	"github.com/go-sql-driver/mysql"
)

// sqlErrorReply tells whether MySQL answered with an error reply (a
// deadlock, a lock wait timeout, a constraint), not a lost connection.
func sqlErrorReply(err error) bool {
	var my *mysql.MySQLError
	return errors.As(err, &my)
}

// failBatch is sql-error-permanent: every SQL error is taken for a
// permanent one, so the events of a batch whose finalize MySQL refused are
// written failed ("finalize: <error>") in a fresh fenced transaction. A
// deadlock or a lock wait timeout, which restarting the transaction would
// have got past, kills valid events.
func (d *Dispatcher) failBatch(ctx context.Context, b *batch, cause error) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	err := dispatchkit.InTx(ctx, d.db, func(tx *sql.Tx) error {
		for _, e := range b.events {
			if err := d.writeFailed(ctx, tx, b, e, "finalize: "+cause.Error()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("fail batch after an SQL error: %w", err)
	}
	d.log.Warn("batch failed for an SQL error", "batch", len(b.events), "error", cause.Error())
	return nil
}

// readOnlyReply tells whether the store refused with its read-only error:
// 1290 (--read-only, super_read_only) or 1836 (a read-only transaction).
func readOnlyReply(err error) bool {
	var my *mysql.MySQLError
	return errors.As(err, &my) && (my.Number == 1290 || my.Number == 1836)
}

// refusedBatch is a batch whose finalize the store refused read-only.
type refusedBatch struct {
	batch *batch
	cause error
}

// failRefused is read-only-as-permanent: the store's read-only refusal is
// taken for a verdict on the batch, so each batch it refused is written
// failed ("finalize: <error>", fenced by its token) as soon as the store
// takes writes again; one it still refuses waits for the next poll. A
// failover's passing state kills valid events.
func (d *Dispatcher) failRefused(ctx context.Context) {
	var keep []refusedBatch
	for _, r := range d.failLater {
		if err := d.failBatch(ctx, r.batch, r.cause); err != nil && readOnlyReply(err) && ctx.Err() == nil {
			keep = append(keep, r)
		}
	}
	d.failLater = keep
}
