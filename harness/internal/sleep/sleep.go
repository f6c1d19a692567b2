package sleep

import (
	"context"
	"time"
)

// For waits d, or less when ctx ends first: then it returns ctx's error. A
// d of zero or less returns at once (ctx's error, if it has ended).
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
