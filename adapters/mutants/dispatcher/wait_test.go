package dispatcher

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
)

// Told to wait for a replica that Redis does not have, every WAIT counts
// none. The base keeps the event pending, its attempt spent, and says why;
// wait-unchecked publishes it though only the primary holds the job.
func TestWaitUncheckedPublishesWhatNoReplicaHolds(t *testing.T) {
	for _, c := range []struct{ bug, want string }{{"", "pending"}, {names.BugWaitUnchecked, "published"}} {
		e := newEnv(t)
		cfg := e.config("d1", c.bug)
		cfg.RedisReplicas = 1
		d := e.dispatcher(cfg)
		id := e.addValid("job-w1")
		e.poll(d)
		r := e.row(id)
		require.Equal(t, c.want, r.Status, "bug %q", c.bug)
		if c.bug == "" {
			require.Contains(t, r.LastError, "WAIT counted 0 of 1 replicas")
		}
		require.Equal(t, int64(1), e.Redis.Exists(t.Context(), "bull:ai-default:job-w1").Val(), "bug %q: the add ran either way", c.bug)
	}
}
