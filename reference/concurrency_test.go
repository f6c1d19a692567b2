package reference_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConcurrentInstancesNeverShareAnEvent runs 2 and then 4 dispatchers
// over 2000 events and proves from the audit trail that no event was ever
// claimed twice, and from Redis that each job was added exactly once.
func TestConcurrentInstancesNeverShareAnEvent(t *testing.T) {
	for _, instances := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d instances", instances), func(t *testing.T) {
			const events = 2000
			e := newEnv(t)
			e.addMany("c", events)
			var stops []func()
			for i := 0; i < instances; i++ {
				cfg := e.Config(fmt.Sprintf("d%d", i+1))
				cfg.BatchSize = 20
				stops = append(stops, e.run(e.dispatcher(cfg)))
			}
			e.waitFor("every event published", func() bool {
				return e.Count(`SELECT COUNT(*) FROM outbox_events WHERE status = 'published'`) == events
			})
			for _, stop := range stops {
				stop()
			}

			require.Zero(t, e.Count(`SELECT COUNT(*) FROM outbox_events WHERE attempts <> 1`),
				"every event claimed once (a deadlock or a double claim would show here)")
			require.Zero(t, e.Count(`SELECT COUNT(*) FROM (SELECT event_id FROM audit WHERE new_status = 'processing'
				GROUP BY event_id HAVING COUNT(*) <> 1) x`), "exactly one claim transition per event")
			require.Zero(t, e.Count(`SELECT COUNT(*) FROM audit WHERE new_status = 'processing' AND old_status <> 'pending'`))
			require.Zero(t, e.Count(`SELECT COUNT(*) FROM audit a JOIN outbox_events o ON o.id = a.event_id
				WHERE a.new_status = 'published' AND a.locked_by <> (SELECT c.locked_by FROM audit c
					WHERE c.event_id = a.event_id AND c.new_status = 'processing')`), "each event finalized by its claimer")
			require.GreaterOrEqual(t, e.Count(`SELECT COUNT(DISTINCT locked_by) FROM outbox_events`), 2, "the instances shared the work")
			require.Zero(t, e.Count(`SELECT COUNT(*) FROM ai_jobs WHERE status <> 'queued'`))

			require.Equal(t, events, e.addCalls(queueA), "one add per event, no duplicate add")
			wait := e.waitList(queueA)
			require.Len(t, wait, events)
			seen := map[string]bool{}
			for _, id := range wait {
				require.False(t, seen[id], "job %s queued twice", id)
				seen[id] = true
			}
		})
	}
}
