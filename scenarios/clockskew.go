package scenarios

import (
	"context"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// clockSkew restarts d2 with its wall clock 10 s behind the database (five
// leases) for 4 s of the load, then puts it right (MailFathom #1989: a
// skew larger than the lease gave duplicate execution). A dispatcher that
// takes lease ends from the database clock (NOW(6) + lease) is untouched;
// one that computes locked_until in application time writes leases that
// ran out before they began, and I5 catches each such claim from the
// database clock alone. The skew reaches only d2, through the adapter's
// declared mechanism (capabilities.clock: faketime or go-overlay,
// harness/clockskew); an adapter that declares none is skipped with that
// reason. The run counts only if d2 claimed events while skewed: the skew
// lasts past its 4 s until Redis showed five jobs of events d2 held (up to
// 8 s more), since d2 may win few claim races.
func clockSkew() runner.Scenario {
	s := base("clock-skew", "d2 runs with its wall clock 10 s behind the database (more than the lease) for 4 s: leases on the database clock stay exclusive; one computed in application time is over before it begins", 3, 600)
	s.Rate = 100
	s.Needs = []runner.Needs{runner.NeedClockSkew}
	s.Exercises = []string{"I5"}
	skew, hold := param(&s, "skew", -10*time.Second), param(&s, "skewed_for", 4*time.Second)
	claims := 5
	s.Landing = []history.Requirement{{Fault: history.LandClockSkew, AtLeast: claims}}
	s.Script = after(500*time.Millisecond, func(ctx context.Context, n *nemesis.Nemesis) error {
		return n.SkewClockFor(ctx, "d2", skew, hold, claims)
	})
	return s
}
