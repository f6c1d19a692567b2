package bench

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Defaults of a full run.
const (
	DefaultEvents          = 50_000
	DefaultRate            = 1000
	DefaultLatencyDuration = 20 * time.Second
	DefaultBatchSize       = 200
	DefaultPollInterval    = 50 * time.Millisecond
	DefaultDesignEvents    = 2000
	DefaultSeedCap         = 30 * time.Second
	DefaultLongEvents      = 1_000_000
	DefaultRounds          = 3
)

// Sizes of a Quick run: a smoke test of every row in well under a minute.
const (
	quickEvents          = 1000
	quickRate            = 200
	quickLatencyDuration = 2 * time.Second
	quickDesignEvents    = 100
	quickSeedCap         = 10 * time.Second
)

// maxInstances bounds Config.Instances: the machine this runs on has a few
// cores, and every instance is a process.
const maxInstances = 16

// Config is one benchmark run's input. Zero fields take the defaults (the
// Quick sizes when Quick is set).
type Config struct {
	// Events is the saturation preload of the floor and of each reference
	// case (default 50,000).
	Events int
	// Rate is the offered load of the latency phase, events per second
	// (default 1000).
	Rate float64
	// LatencyDuration is how long the latency phase offers Rate (default 20s).
	LatencyDuration time.Duration
	// Rounds is how many times the floor and each reference count are
	// measured at saturation, interleaved (floor, x1, x2, x4, floor, ...),
	// so that load from other programs on a shared machine hits every row
	// alike; each row reports its median round (default 3; 1 when Quick).
	Rounds int
	// Instances are the reference instance counts to run (default 1, 2, 4),
	// ascending, each 1..16.
	Instances []int
	// BatchSize is the reference's OUTBOX_BATCH_SIZE and the floor's batch
	// (default 200).
	BatchSize int
	// PollInterval is the reference's OUTBOX_POLL_INTERVAL (default 50ms).
	PollInterval time.Duration
	// Reference runs the dispatcher under test (the reference adapter);
	// required.
	Reference supervisor.Adapter
	// Designs are the comparison dispatchers (the seeds' designs).
	Designs []Design
	// SeedCap stops a design's run early (default 30s); its rate is then
	// taken from what it published.
	SeedCap time.Duration
	// LongEvents, when positive, adds the memory-flat check: that many
	// events through 2 reference instances, RSS sampled (--long: 1,000,000).
	LongEvents int
	// Quick selects small sizes for a smoke test (explicit fields still win).
	Quick bool
	// Out receives progress lines and the final table; nil discards them.
	Out io.Writer
	// File, when set, receives the report as markdown.
	File string
	// WorkDir holds the built binaries and the instances' logs; "" makes a
	// temporary directory removed at the end.
	WorkDir string
	// MariaDB and Redis are private servers to use; nil starts new ones
	// (and closes them at the end). The benchmark flushes the Redis
	// database and reads server-wide counters: never pass a shared server.
	MariaDB *localenv.MariaDB
	Redis   *localenv.Redis
	// Command is the command line that reproduces the run, for the header.
	Command string
	// ProfileDir, when set, adds a CPU profile (pprof) of the reference run
	// in-process on one saturation case, written there.
	ProfileDir string
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	ev, rate, lat, design, capd := DefaultEvents, float64(DefaultRate), DefaultLatencyDuration,
		DefaultDesignEvents, DefaultSeedCap
	inst, rounds := []int{1, 2, 4}, DefaultRounds
	if c.Quick {
		rounds = 1
		ev, rate, lat, design, capd = quickEvents, quickRate, quickLatencyDuration, quickDesignEvents, quickSeedCap
		inst = []int{1, 2}
	}
	setInt(&c.Events, ev)
	setInt(&c.Rounds, rounds)
	c.Designs = append([]Design(nil), c.Designs...)
	for i := range c.Designs {
		setInt(&c.Designs[i].Events, design)
		setInt(&c.Designs[i].Instances, 1)
	}
	setInt(&c.BatchSize, DefaultBatchSize)
	if c.Rate == 0 {
		c.Rate = rate
	}
	setDur(&c.LatencyDuration, lat)
	setDur(&c.SeedCap, capd)
	setDur(&c.PollInterval, DefaultPollInterval)
	if len(c.Instances) == 0 {
		c.Instances = inst
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	return c
}

func setInt(p *int, v int) {
	if *p == 0 {
		*p = v
	}
}

func setDur(p *time.Duration, v time.Duration) {
	if *p == 0 {
		*p = v
	}
}

// Validate checks a config after defaults are filled in.
func (c Config) Validate() error {
	switch {
	case c.Events < 1:
		return fmt.Errorf("bench: Events %d: preload at least 1 event (default %d)", c.Events, DefaultEvents)
	case c.Rate <= 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("bench: Rate %v: offer a positive number of events per second (default %d)", c.Rate, DefaultRate)
	case c.LatencyDuration < 100*time.Millisecond:
		return fmt.Errorf("bench: LatencyDuration %s: use at least 100ms (default %s)", c.LatencyDuration, DefaultLatencyDuration)
	case c.BatchSize < 1 || c.BatchSize > 10000:
		return fmt.Errorf("bench: BatchSize %d: use 1..10000 (default %d)", c.BatchSize, DefaultBatchSize)
	case c.PollInterval <= 0:
		return fmt.Errorf("bench: PollInterval %s: use a positive duration (default %s)", c.PollInterval, DefaultPollInterval)
	case c.Reference == nil:
		return fmt.Errorf("bench: Reference is nil: pass the reference adapter (adapters/reference New())")
	case c.SeedCap < time.Second:
		return fmt.Errorf("bench: SeedCap %s: give the seed designs at least 1s (default %s)", c.SeedCap, DefaultSeedCap)
	case c.Rounds < 1 || c.Rounds > 20:
		return fmt.Errorf("bench: Rounds %d: use 1..20 (default %d)", c.Rounds, DefaultRounds)
	case c.LongEvents < 0:
		return fmt.Errorf("bench: LongEvents %d: use 0 (no memory check) or a positive count", c.LongEvents)
	}
	if err := validateDesigns(c.Designs); err != nil {
		return err
	}
	return validateInstances(c.Instances)
}

// Design is a comparison dispatcher: one of the seeds' designs.
type Design struct {
	// Name labels its row ("nest-single"); unique, not "floor" or "reference".
	Name string
	// About says in a few words what the design does, for the table's notes.
	About   string
	Adapter supervisor.Adapter
	// Events is its preload (default 2000; 100 when Quick). A slow design
	// gets fewer, and SeedCap ends its run early anyway.
	Events int
	// Instances it runs with (default 1).
	Instances int
	// GoalFactor, when positive, is a goal: the reference's best rate must
	// be at least GoalFactor times this design's.
	GoalFactor float64
}

func validateDesigns(ds []Design) error {
	seen := map[string]bool{"floor": true, "reference": true}
	for _, d := range ds {
		switch {
		case d.Name == "" || seen[d.Name]:
			return fmt.Errorf("bench: design name %q: give each design a unique name other than floor and reference", d.Name)
		case d.Adapter == nil:
			return fmt.Errorf("bench: design %s has no adapter", d.Name)
		case d.Events < 1 || d.Instances < 1 || d.Instances > maxInstances:
			return fmt.Errorf("bench: design %s: Events %d, Instances %d: use at least 1 event and 1..%d instances", d.Name, d.Events, d.Instances, maxInstances)
		case d.GoalFactor < 0:
			return fmt.Errorf("bench: design %s: GoalFactor %v: use 0 (no goal) or a positive factor", d.Name, d.GoalFactor)
		}
		seen[d.Name] = true
	}
	return nil
}

func validateInstances(counts []int) error {
	for i, n := range counts {
		if n < 1 || n > maxInstances {
			return fmt.Errorf("bench: Instances %v: each count must be 1..%d", counts, maxInstances)
		}
		if i > 0 && n <= counts[i-1] {
			return fmt.Errorf("bench: Instances %v: list the counts in ascending order without repeats (e.g. 1,2,4)", counts)
		}
	}
	return nil
}
