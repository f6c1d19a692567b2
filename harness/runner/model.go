package runner

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/store"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// modelAdapter is an adapter whose dispatcher publishes to a sink other
// than BullMQ, or promises at-least-once delivery (a manifest's sink.kind
// and delivery).
type modelAdapter interface {
	SinkKind() string
	Delivery() string
}

// OutboxModel is what the adapter's outbox can express (model.Caps).
func OutboxModel(a supervisor.Adapter) history.Model {
	sink, delivery := history.SinkBullMQ, history.DeliveryExactlyOnce
	if ma, ok := a.(modelAdapter); ok {
		sink, delivery = ma.SinkKind(), ma.Delivery()
	}
	m := model.Caps(a.Schema(), sink, delivery)
	if st, err := storeOf(a); err == nil && st.Name() != store.NameMySQL {
		m.Store = st.Name()
	}
	if hasProducer(a) && m.Has(history.LackPoison) {
		// the team's producer writes valid events only
		m.Lacks = append(m.Lacks, history.LackPoison)
		sort.Strings(m.Lacks)
	}
	return m
}

// outboxModel is the adapter's OutboxModel with the precision the run
// read from the server.
func (r *session) outboxModel() history.Model {
	m := OutboxModel(r.o.Adapter)
	m.Precision = r.precision
	return m
}

// NotApplicable says why scenario s cannot exercise anything on an outbox
// of model m: every invariant it exists to exercise is not applicable
// there. "" when it can (or exercises nothing in particular).
func NotApplicable(s Scenario, m history.Model) string {
	if len(s.Exercises) == 0 {
		return ""
	}
	var whys []string
	for _, id := range s.Exercises {
		why := check.WhyNotApplicable(id, m)
		if why == "" {
			return ""
		}
		whys = append(whys, id+" "+strings.TrimPrefix(why, "not applicable: "))
	}
	return fmt.Sprintf("%s exists to exercise what this outbox cannot express: %s", s.Name, strings.Join(whys, "; "))
}

// readHistory reads the triggers' records and the final scan, and derives
// the canonical history from them (harness/model).
func (r *session) readHistory(ctx context.Context) ([]history.Transition, history.Final, error) {
	m := r.o.Adapter.Schema()
	st := r.dbs.store()
	raw, err := st.ReadTransitions(ctx, r.db, m, 0)
	if err != nil {
		return nil, history.Final{}, fmt.Errorf("read history: %w", err)
	}
	observe.AttributeWriters(raw, r.dbs.slotWriters())
	events := r.rec.Snapshot().Events
	trans, err := model.Derive(m, events, raw)
	if err != nil {
		return nil, history.Final{}, err
	}
	final, err := r.scanFinal(ctx)
	if err != nil {
		return nil, history.Final{}, fmt.Errorf("final scan: %w", err)
	}
	if r.sink != nil {
		if final.Appends, err = r.sink.finalAppends(ctx); err != nil {
			return nil, history.Final{}, fmt.Errorf("final sink scan: %w", err)
		}
	}
	final.Outbox = model.DeriveFinal(m, events, trans, final.Outbox)
	return trans, final, nil
}

// scanFinal reads the end state: Redis's queues (or the sink's appends)
// and the store's rows.
func (r *session) scanFinal(ctx context.Context) (history.Final, error) {
	m, st := r.o.Adapter.Schema(), r.dbs.store()
	final, err := observe.ScanQueues(ctx, r.rdb, r.prefix, r.queues)
	if err != nil {
		return final, err
	}
	if final.Outbox, err = st.ScanOutbox(ctx, r.db, m); err != nil {
		return final, err
	}
	if final.Jobs, err = st.ScanJobs(ctx, r.db, m); err != nil {
		return final, err
	}
	return final, nil
}
