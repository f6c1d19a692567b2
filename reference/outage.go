package reference

import "context"

// ready tells whether work that needs b's dependency may start. While b is
// open it probes when the probe is due (doc.go, "Dependency health"); a
// probe that gets an answer makes b half-open, and the work resumes.
func (d *Dispatcher) ready(ctx context.Context, b *breaker, ping func(context.Context) error) bool {
	if b.allows() {
		return true
	}
	if b.probeDue() {
		pctx, cancel := context.WithTimeout(ctx, d.cfg.PublishTimeout)
		err := ping(pctx)
		cancel()
		if err != nil && !answeredNothing(err) {
			err = nil // an error reply is an answer
		}
		b.probed(err)
	}
	return b.allows()
}

func (d *Dispatcher) pingRedis(ctx context.Context) error { return d.rdb.Ping(ctx).Err() }

func (d *Dispatcher) pingMySQL(ctx context.Context) error { return d.db.PingContext(ctx) }

// heard records the outcome of an operation on b's dependency: no answer
// opens b, unless work (the loop's context, not the operation's own
// timeout) has ended, which is a stop and not an outage; anything else is
// an answer. It reports whether the dependency answered nothing.
func heard(work context.Context, b *breaker, err error) bool {
	if !answeredNothing(err) {
		b.answered()
		return false
	}
	if work.Err() == nil {
		b.noAnswer(err)
	}
	return true
}
