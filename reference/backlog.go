package reference

import (
	"context"
	"fmt"
	"time"
)

// gaugeEvery is how often the loop refreshes outbox_oldest_pending_age_seconds.
const gaugeEvery = 2 * time.Second

// maybeRefreshGauge refreshes the backlog gauge every gaugeEvery.
func (d *Dispatcher) maybeRefreshGauge(ctx context.Context) {
	if time.Since(d.lastGauge) < gaugeEvery {
		return
	}
	d.lastGauge = time.Now()
	err := d.RefreshBacklog(ctx)
	heard(ctx, d.mysqlB, err)
	if err != nil {
		d.log.Warn("backlog gauge refresh failed", "error", err.Error())
	}
}

// RefreshBacklog sets outbox_oldest_pending_age_seconds from one cheap
// query: the smallest available_at among pending rows (an index range on
// idx_outbox_claim), as seconds since then; 0 when nothing pending is due.
func (d *Dispatcher) RefreshBacklog(ctx context.Context) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	var micros *int64
	err := d.db.QueryRowContext(ctx,
		`SELECT TIMESTAMPDIFF(MICROSECOND, MIN(available_at), `+sqlNow+`)
		 FROM outbox_events WHERE status = 'pending' AND available_at <= `+sqlNow,
		d.nowArg(), d.nowArg()).Scan(&micros)
	if err != nil {
		return fmt.Errorf("refresh backlog gauge: %w", err)
	}
	age := 0.0
	if micros != nil && *micros > 0 {
		age = float64(*micros) / 1e6
	}
	d.metrics.oldestAge.Set(age)
	return nil
}
