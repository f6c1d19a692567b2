package bench

import (
	"time"
)

// Row kinds.
const (
	KindFloor     = "floor"
	KindReference = "reference"
	KindDesign    = "design"
)

// Report is one benchmark run.
type Report struct {
	Machine Machine
	Command string // reproduces the run; may be empty
	Started time.Time
	Ended   time.Time
	// Tuning is the reference's tuning and the sizes used, as
	// "name=value" lines for the header.
	Tuning []string
	Rows   []Row
	Goals  []Goal
	Long   *LongResult // nil unless LongEvents was set
	// Profile holds the pprof evidence, when ProfileDir was set.
	Profile *Profile
}

// Row is one dispatcher (or the floor) at saturation, and for reference
// rows, at the fixed offered load.
type Row struct {
	Name      string // "floor", "reference x2", "nest-single x1"
	Kind      string // KindFloor, KindReference or KindDesign
	Instances int    // 0 for the floor (in-process)
	About     string // what the design does, for the notes

	Preloaded int           // events committed before the dispatchers started
	Published int           // events published in the measured window
	Elapsed   time.Duration // start of the dispatchers to the last published_at (database clock)
	Capped    bool          // the run was stopped at the cap before all were published
	EPS       float64       // Published / Elapsed
	// RoundEPS is the rate of every round, in order; the row's other
	// fields are its median round's.
	RoundEPS []float64

	Latency *Latency // reference rows only

	SQLPerEvent   float64 // MySQL statements (Questions) per event, harness's own excluded
	RedisPerEvent float64 // Redis commands per event (server count, Lua-internal calls included)
	// CPUPer10k is the dispatcher processes' CPU seconds per 10,000 events
	// (the floor: the harness process, which runs it in-process).
	CPUPer10k float64
	// PeakRSSMB is the largest VmHWM of one dispatcher process; 0 for the
	// floor, which runs inside the harness.
	PeakRSSMB float64
	// MariaDBCPUPer10k and RedisCPUPer10k are the servers' CPU seconds per
	// 10,000 events in the same window.
	MariaDBCPUPer10k float64
	RedisCPUPer10k   float64
	// CoresBusy is all CPU the dispatchers and both servers used, divided by
	// the elapsed time: how many cores the case kept busy.
	CoresBusy float64
	// MachineBusy is how many cores the whole machine kept busy in the same
	// window (/proc/stat): the rest of MachineBusy - CoresBusy is other
	// programs (and the harness) competing for the same cores.
	MachineBusy float64
}

// Latency is commit-to-published latency at a fixed offered load:
// published_at - created_at of each event, both on the database clock.
type Latency struct {
	Offered  float64 // events per second asked for
	Achieved float64 // events per second the producers committed
	Events   int
	P50      time.Duration
	P99      time.Duration
	Max      time.Duration
	// The two halves of each latency, split at the claim (its time is
	// recorded by a trigger the benchmark adds for this phase): waiting
	// for a poll to claim the event, then the batch's work until published.
	WaitP50, WaitP99 time.Duration
	WorkP50, WorkP99 time.Duration
	// SlowSeconds counts the seconds (by commit time) holding at least one
	// event slower than the latency goal, of Seconds: a few stalls or a
	// steady tail.
	SlowSeconds, Seconds int
	// MachineBusy is how many cores the whole machine kept busy during the
	// phase; OursBusy how many the dispatchers, both servers and the
	// harness (which runs the producers) used.
	MachineBusy, OursBusy float64
}

// Goal is one of the performance goals, as measured.
type Goal struct {
	Name   string
	Status string // GoalMet, GoalNotMet or GoalNotMeasured
	Detail string // the numbers, and what bounds it when not met
}

// Goal statuses.
const (
	GoalMet         = "met"
	GoalNotMet      = "not met"
	GoalNotMeasured = "not measured"
)

// Row returns the row named name, or nil.
func (r *Report) Row(name string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Name == name {
			return &r.Rows[i]
		}
	}
	return nil
}

// rowsOf returns the rows of one kind, in order.
func (r *Report) rowsOf(kind string) []Row {
	var out []Row
	for _, row := range r.Rows {
		if row.Kind == kind {
			out = append(out, row)
		}
	}
	return out
}
