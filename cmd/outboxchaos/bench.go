package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/adapters/designs"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/bench"
)

// benchFlags are the bench command's options.
type benchFlags struct {
	out, file, instances  string
	quick, long, profile  bool
	events, batch, rounds int
	rate                  float64
	duration, poll        time.Duration
}

func parseBenchFlags(args []string) (benchFlags, error) {
	var f benchFlags
	fs := newFlags("bench")
	fs.StringVar(&f.out, "out", "", "folder for bench.md (and the profile); default runs/bench-<time>")
	fs.StringVar(&f.file, "file", "", "write the markdown report here instead of <out>/bench.md")
	fs.StringVar(&f.instances, "instances", "", "reference instance counts, ascending (default 1,2,4)")
	fs.BoolVar(&f.quick, "quick", false, "small sizes: a smoke test of every row in under a minute")
	fs.BoolVar(&f.long, "long", false, "add the memory-flat check: 1,000,000 events through 2 instances")
	fs.BoolVar(&f.profile, "profile", false, "add a pprof CPU profile of one reference instance in-process (<out>/reference-cpu.pprof)")
	fs.IntVar(&f.events, "events", 0, fmt.Sprintf("saturation preload (default %d)", bench.DefaultEvents))
	fs.Float64Var(&f.rate, "rate", 0, fmt.Sprintf("offered load of the latency phase, events/s (default %d)", bench.DefaultRate))
	fs.DurationVar(&f.duration, "duration", 0, fmt.Sprintf("length of the latency phase (default %s)", bench.DefaultLatencyDuration))
	fs.DurationVar(&f.poll, "poll", 0, fmt.Sprintf("the reference's OUTBOX_POLL_INTERVAL (default %s)", bench.DefaultPollInterval))
	fs.IntVar(&f.batch, "batch", 0, fmt.Sprintf("the reference's OUTBOX_BATCH_SIZE and the floor's batch (default %d)", bench.DefaultBatchSize))
	fs.IntVar(&f.rounds, "rounds", 0, fmt.Sprintf("saturation rounds, interleaved, median reported (default %d)", bench.DefaultRounds))
	if err := parse(fs, "bench [--out DIR] [--quick] [--long] [--profile] ...\n\nmeasures the reference's throughput and latency beside the seeds' designs and a raw floor", args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("bench: unexpected argument %q", fs.Arg(0))
	}
	if f.events < 0 || f.rate < 0 || f.duration < 0 || f.poll < 0 || f.batch < 0 || f.rounds < 0 {
		return f, errors.New("bench: --events, --rate, --duration, --poll, --batch and --rounds must not be negative")
	}
	if f.out == "" {
		f.out = filepath.Join("runs", "bench-"+time.Now().Format("20060102-150405"))
	}
	if f.file == "" {
		f.file = filepath.Join(f.out, "bench.md")
	}
	return f, nil
}

// parseInstances reads "1,2,4".
func parseInstances(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("bench: --instances %q: give counts separated by commas, e.g. 1,2,4", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchDesigns are the seeds' designs, run by the mutant binary's modes.
func benchDesigns(quick bool) ([]bench.Design, error) {
	events := map[string]int{"nest-single": 2000, "global-lock-batch20": 400}
	if quick {
		events = map[string]int{"nest-single": 100, "global-lock-batch20": 40}
	}
	goal := map[string]float64{"global-lock-batch20": 100}
	var out []bench.Design
	for _, m := range designs.All() {
		a, err := designs.Adapter(m.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, bench.Design{Name: m.Name, About: m.About, Adapter: a, Events: events[m.Name], GoalFactor: goal[m.Name]})
	}
	return out, nil
}

// cmdBench runs the benchmark and writes the report. Goals are reported,
// never turned into an exit code: 0 when the benchmark ran, 3 when it could
// not (a server would not start, a dispatcher crashed or got stuck).
func cmdBench(ctx context.Context, args []string) int {
	f, err := parseBenchFlags(args)
	if err != nil {
		return fail(err)
	}
	counts, err := parseInstances(f.instances)
	if err != nil {
		return fail(err)
	}
	designs, err := benchDesigns(f.quick)
	if err != nil {
		return fail(fmt.Errorf("bench: %w", err))
	}
	cfg := bench.Config{
		Events: f.events, Rate: f.rate, LatencyDuration: f.duration, Instances: counts, Quick: f.quick,
		PollInterval: f.poll, BatchSize: f.batch, Rounds: f.rounds,
		Reference: refadapter.New(), Designs: designs, Out: os.Stdout, File: f.file,
		WorkDir: filepath.Join(f.out, ".work"), Command: strings.TrimSpace("outboxchaos bench " + strings.Join(args, " ")),
	}
	if f.long {
		cfg.LongEvents = bench.DefaultLongEvents
	}
	if f.profile {
		cfg.ProfileDir = f.out
	}
	if _, err := bench.Measure(ctx, cfg); err != nil {
		return fail(fmt.Errorf("bench: %w", err))
	}
	fmt.Printf("report: %s\n", f.file)
	return 0
}
