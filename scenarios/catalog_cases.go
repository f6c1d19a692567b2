package scenarios

import (
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// commitOrderGaps holds one producer transaction in eight open for 0.4 to
// 1.5 s after its INSERTs: AUTO_INCREMENT hands the id out at the insert,
// the row becomes visible at the commit, so ids commit out of order and a
// dispatcher keeping a high-water mark ("id > the last id I handled")
// passes the late ones by for good. No fault: the gaps are the workload's.
// Reported against watermill-sql (ThreeDotsLabs/watermill #311),
// SQLStreamStore #121 and eugene-khyst/postgresql-event-sourcing.
func commitOrderGaps() runner.Scenario {
	s := base("commit-order-gaps", "one producer transaction in eight is held open 0.4-1.5 s after its insert, so ids commit out of order: an event committed behind a higher id must still be published", 2, 600)
	s.Hold = workload.Hold{Share: 0.125, Min: 400 * time.Millisecond, Max: 1500 * time.Millisecond}
	s.Params["hold"] = "12.5% of events, 400ms-1.5s"
	s.Exercises = []string{"I2"}
	// A held event must commit after a higher id was claimed, or there was
	// no gap to fall into.
	s.Landing = []history.Requirement{{Fault: history.LandCommitGap, AtLeast: 10}}
	return s
}
