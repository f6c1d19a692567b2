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
			if err := d.writeFailed(ctx, tx, b.token, e, "finalize: "+cause.Error()); err != nil {
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
