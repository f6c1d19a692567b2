package dispatcher

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
)

// Redis forgets its scripts when it restarts (SCRIPT FLUSH does the same
// here). The base's producer loads the add script again and publishes the
// next event; script-loaded-once skips the reload, so the add meets
// NOSCRIPT and the event goes back to pending, a transient failure that
// every later attempt repeats. A second instance that never met NOSCRIPT
// loaded the script at its own first add, so it is stuck as well.
func TestScriptLoadedOnceNeverReloadsAfterRedisForgets(t *testing.T) {
	for _, c := range []struct {
		bug  string
		want string
	}{{"", "published"}, {names.BugScriptLoadedOnce, "pending"}} {
		e := newEnv(t)
		d1, d2 := e.dispatcher(e.config("d1", c.bug)), e.dispatcher(e.config("d2", c.bug))
		for i, d := range []*Dispatcher{d1, d2} {
			first := e.addValid(fmt.Sprintf("job-a%d", i))
			e.poll(d)
			require.Equal(t, "published", e.row(first).Status, "bug %q: the first add loads the script", c.bug)
		}
		require.NoError(t, e.Redis.ScriptFlush(context.Background()).Err())
		for i, d := range []*Dispatcher{d2, d1} {
			next := e.addValid(fmt.Sprintf("job-b%d", i))
			e.poll(d)
			r := e.row(next)
			require.Equal(t, c.want, r.Status, "bug %q, instance %d", c.bug, 2-i)
			if c.bug != "" {
				require.Contains(t, r.LastError, "script missing again")
			}
		}
	}
}
