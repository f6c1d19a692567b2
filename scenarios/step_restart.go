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

// Nominal is the down time and a restart.
func (s Restart) Nominal() time.Duration { return s.For + typicalRestart }

func (s Restart) need() runner.Needs { return runner.NeedServerCtl }

func (s Restart) run(ctx context.Context, n *nemesis.Nemesis) error {
	return n.RestartServer(ctx, s.Dep, s.For)
}

// restartFor are the Redis down times the generator draws, shortest first.
var restartFor = []time.Duration{300 * time.Millisecond, time.Second}

func (Restart) available(sp Space) bool { return sp.RestartRedis }

func (Restart) draw(c Chooser, _ Space) Step {
	return Restart{Dep: "redis", For: pick(c, "down", restartFor)}
}
