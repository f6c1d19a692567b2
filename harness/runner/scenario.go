package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// Needs names a capability a scenario requires of the adapter.
type Needs string

// Capabilities a scenario may need.
const (
	NeedCrashPoints  Needs = "crash-points"
	NeedGracefulTerm Needs = "graceful-term"
	NeedServerCtl    Needs = "server-control" // the environment can kill and restart servers
	// NeedMySQLRestart: the environment can SIGKILL MySQL and start it
	// again on the same port with its data (env.MySQLRestartInPlace).
	NeedMySQLRestart Needs = "mysql-restart"
	// NeedLastError: the adapter's outbox maps a last_error column, the
	// one LastErrorWidth narrows.
	NeedLastError Needs = "last-error"
	// NeedTimeColumns: the adapter's outbox maps locked_until or
	// available_at, the columns WholeSeconds coarsens.
	NeedTimeColumns Needs = "time-columns"
)

// Scenario is one named test: the instances, the workload, the fault schedule,
// and the invariants it must keep. Definitions live in package scenarios.
type Scenario struct {
	Name        string
	Description string // one line, shown by `outboxchaos list`
	Instances   int
	Events      int
	Rate        float64 // events per second; 0 = as fast as the producer goes
	Mix         workload.Mix
	// Aggregates > 0 spreads the events over that many aggregates, named
	// in each payload (workload.ProducerConfig.Aggregates): the ordering
	// scenario's workload. 0 is the contract's one event per job.
	Aggregates int
	// Hold holds a share of the producer's transactions open, so ids
	// commit out of order (workload.Hold); zero holds none.
	Hold workload.Hold
	// LastErrorWidth > 0 narrows the outbox's last_error column to
	// VARCHAR(LastErrorWidth) once the adapter's schema is applied, so that
	// a failure text a dispatcher writes unfitted is refused by the server
	// (the failure-write scenario). The run records it as a fault of kind
	// history.FaultNarrowColumn.
	LastErrorWidth int
	// WholeSeconds alters the outbox's lease and backoff columns
	// (locked_until, available_at) to whole seconds once the adapter's
	// schema is applied, keeping their type, nullability and default: a
	// lease end or a backoff written with a fraction is cut (MariaDB) or
	// rounded (MySQL, PostgreSQL). The run records it as a fault of kind
	// history.FaultCoarsenColumns.
	WholeSeconds bool
	Tuning       history.Tuning
	// Consumer runs a worker that takes jobs during the run; RemoveOnComplete
	// makes it delete job hashes on completion (the dedupe-horizon trap).
	Consumer         bool
	RemoveOnComplete bool
	// ConsumerLeavesRows keeps the consumer off the jobs table, so a
	// re-dispatch after a crash finds the job still created and the add
	// itself must be the no-op.
	ConsumerLeavesRows bool
	Needs              []Needs
	// Waived names invariants this scenario does not require, with the reason.
	Waived map[string]string
	// Exercises names the invariants this scenario exists to exercise: the
	// ones its faults are meant to put to the test. A run in which one of them
	// had nothing to check (check.NotExercised) is unknown, never a pass.
	Exercises []string
	// Landing states what must happen for the verdict to count: a
	// requirement not met makes the run unknown (check.CheckLanding).
	Landing []history.Requirement
	// Drain bounds the drain phase; zero picks a default from the tuning.
	Drain time.Duration
	// Script drives the faults during the load phase. It runs concurrently
	// with the producer and must return when its schedule is done or ctx ends.
	Script func(ctx context.Context, n *nemesis.Nemesis) error
	// Params are the scenario's own parameters beyond its fields (the
	// crashes planned, an outage's length), shown in reports and
	// results.json with the ones ShownParams derives from the fields.
	Params map[string]string
	// Zones runs the store's server and the instances in different time
	// zones (zones.go; needs NeedServerZone); zero for UTC and the
	// harness's own TZ.
	Zones Zones
}

// ShownParams is what reports and results.json show of the scenario: Params,
// and the fields that set a scenario apart, derived from the fields so they
// cannot disagree with what ran (instances, events, and the consumer's
// options when set). A derived key wins over the same key in Params.
func (s Scenario) ShownParams() map[string]string {
	out := maps.Clone(s.Params)
	if out == nil {
		out = map[string]string{}
	}
	out["instances"] = strconv.Itoa(s.Instances)
	out["events"] = strconv.Itoa(s.Events)
	if s.ConsumerLeavesRows {
		out["consumer_leaves_rows"] = "true"
	}
	if s.RemoveOnComplete {
		out["remove_on_complete"] = "true"
	}
	return out
}

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,40}$`)

// Validate reports the first problem with the definition.
func (s Scenario) Validate() error {
	switch {
	case !namePattern.MatchString(s.Name):
		return fmt.Errorf("scenario name %q: use lower-case letters, digits and dashes", s.Name)
	case s.Description == "":
		return fmt.Errorf("scenario %s: description is empty", s.Name)
	case s.Instances < 1 || s.Instances > 16:
		return fmt.Errorf("scenario %s: instances %d: want 1..16", s.Name, s.Instances)
	case s.Events < 1:
		return fmt.Errorf("scenario %s: events %d: want at least 1", s.Name, s.Events)
	case s.Rate < 0:
		return fmt.Errorf("scenario %s: rate %v: want >= 0", s.Name, s.Rate)
	case s.Aggregates < 0 || s.Aggregates > s.Events:
		return fmt.Errorf("scenario %s: aggregates %d: want 0 (none) up to the %d events", s.Name, s.Aggregates, s.Events)
	}
	if err := s.validateExercises(); err != nil {
		return err
	}
	if err := s.Hold.Validate(); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if err := s.Zones.Validate(); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if s.LastErrorWidth < 0 || s.LastErrorWidth > 1024 {
		return fmt.Errorf("scenario %s: last_error width %d: want 1..1024 characters, or 0 to leave the column as the schema has it", s.Name, s.LastErrorWidth)
	}
	return validateTuning(s.Name, s.Tuning)
}

// validateExercises: known invariant ids, each once, none also waived.
func (s Scenario) validateExercises() error {
	seen := map[string]bool{}
	for _, id := range s.Exercises {
		switch {
		case !check.Known(id):
			return fmt.Errorf("scenario %s: exercises %q: not an invariant id (I1..I10)", s.Name, id)
		case seen[id]:
			return fmt.Errorf("scenario %s: exercises %s twice", s.Name, id)
		case s.Waived[id] != "":
			return fmt.Errorf("scenario %s: exercises %s and waives it: a scenario cannot exist to test what it does not require", s.Name, id)
		}
		seen[id] = true
	}
	for id := range s.Waived {
		if !check.Known(id) {
			return fmt.Errorf("scenario %s: waives %q: not an invariant id (I1..I10)", s.Name, id)
		}
	}
	return nil
}

func validateTuning(name string, t history.Tuning) error {
	var errs []error
	for _, d := range []struct {
		n string
		v history.Duration
	}{
		{"poll interval", t.PollInterval}, {"lease", t.Lease}, {"backoff base", t.BackoffBase},
		{"backoff max", t.BackoffMax}, {"publish timeout", t.PublishTimeout},
	} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be > 0", d.n))
		}
	}
	if t.BatchSize < 1 {
		errs = append(errs, errors.New("batch size must be >= 1"))
	}
	if t.MaxAttempts < 1 {
		errs = append(errs, errors.New("max attempts must be >= 1"))
	}
	if t.BackoffMax < t.BackoffBase {
		errs = append(errs, errors.New("backoff max must be >= backoff base"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("scenario %s tuning: %w", name, err)
	}
	return nil
}

// DefaultTuning is the tuning most scenarios use: short enough that leases,
// backoffs and recoveries happen within seconds.
func DefaultTuning() history.Tuning {
	return history.Tuning{
		PollInterval:   history.Duration(50 * time.Millisecond),
		BatchSize:      50,
		Lease:          history.Duration(2 * time.Second),
		MaxAttempts:    6,
		BackoffBase:    history.Duration(100 * time.Millisecond),
		BackoffMax:     history.Duration(2 * time.Second),
		PublishTimeout: history.Duration(1 * time.Second),
	}
}

// drainBudget is how long the drain may take: enough for a lease to run out,
// a full backoff and a few polls, plus slack for a loaded machine.
// stallWindow is how long a drain past its budget waits for the count of
// open events to fall before it stops: time for a correct dispatcher to
// finish some event whatever it met (a lease, the longest backoff, two
// polls, and 2 s).
func (s Scenario) stallWindow() time.Duration {
	t := s.Tuning
	return t.Lease.D() + t.BackoffMax.D() + 2*t.PollInterval.D() + 2*time.Second
}

func (s Scenario) drainBudget() time.Duration {
	if s.Drain > 0 {
		return s.Drain
	}
	t := s.Tuning
	return t.Lease.D() + t.BackoffMax.D() + 4*t.PollInterval.D() + 20*time.Second
}
