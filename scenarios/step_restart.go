package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// Restart kills the Dep server ("mysql" or "redis") and starts it again
// after For (the environment must control its servers).
type Restart struct {
	Dep string
	For time.Duration
}

// String is "restart <Dep> (down <For>)".
func (s Restart) String() string { return fmt.Sprintf("restart %s (down %s)", s.Dep, s.For) }

// Validate wants mysql or redis and a positive down time.
func (s Restart) Validate(int) error {
	return invalid(s, validServer("server", s.Dep), positive(s.For))
}

// Nominal is the down time and a restart: the database server's takes
// longer than Redis's (crash recovery; docs/findings.md, mysql-restart
// timings).
func (s Restart) Nominal() time.Duration {
	if s.Dep == "redis" {
		return s.For + typicalRestart
	}
	return s.For + typicalStoreRestart
}

func (s Restart) need() runner.Needs { return runner.NeedServerCtl }

func (s Restart) run(ctx context.Context, n *nemesis.Nemesis) error {
	return n.RestartServer(ctx, s.Dep, s.For)
}

// typicalStoreRestart is what Nominal counts for the database server's
// start after a SIGKILL (crash recovery included).
const typicalStoreRestart = time.Second

// restartFor are the down times the generator draws, shortest first.
var restartFor = []time.Duration{300 * time.Millisecond, time.Second}

// available: the menu has an entry per server; Redis's restart needs a
// space that can restart Redis, the store's one that can restart it in
// place.
func (s Restart) available(sp Space) bool {
	if s.Dep == "redis" {
		return sp.RestartRedis
	}
	return sp.RestartStore
}

func (s Restart) draw(c Chooser, _ Space) Step {
	return Restart{Dep: s.Dep, For: pick(c, "down", restartFor)}
}
