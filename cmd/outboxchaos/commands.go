package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/outboxchaos/outboxchaos/adapters"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

type runFlags struct {
	scenario, adapter, out, shard string
	seed                          int64
}

const (
	runSynopsis   = "run --scenario NAME [--adapter reference] [--seed N] [--out DIR]\n\nruns one scenario and writes its report into --out"
	chaosSynopsis = "chaos [--scenario a,b,c] [--adapter reference] [--seed N] [--out DIR] [--shard i/n]\n\nruns the catalog (or the scenarios named), one folder per scenario under --out, and a summary page"
)

func parseRunFlags(name string, args []string, needScenario bool) (runFlags, error) {
	var f runFlags
	fs := newFlags(name)
	synopsis := runSynopsis
	if needScenario {
		fs.StringVar(&f.scenario, "scenario", "", "the `NAME` of the scenario to run (outboxchaos list prints them)")
	} else {
		synopsis = chaosSynopsis
		fs.StringVar(&f.scenario, "scenario", "", "comma-separated scenario `NAMES`, run in catalog order (default: the whole catalog)")
		fs.StringVar(&f.shard, "shard", "", "run the i-th of n round-robin slices of the selection, as `i/n`")
	}
	fs.StringVar(&f.adapter, "adapter", "reference", "the dispatcher under test, as `ADAPTER`: reference, mutant:NAME, or a manifest file")
	fs.StringVar(&f.out, "out", "", "the run folder `DIR` to write (default runs/<time>)")
	fs.Int64Var(&f.seed, "seed", 0, "the `SEED` of every random draw (default: derived from the clock, printed)")
	if err := parse(fs, synopsis, args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("%s: unexpected argument %q", name, fs.Arg(0))
	}
	if needScenario && f.scenario == "" {
		return f, fmt.Errorf("%s: --scenario is required; choose one of %s", name, strings.Join(scenarios.Names(), ", "))
	}
	if f.seed == 0 {
		f.seed = time.Now().UnixNano() % 1_000_000_007
	}
	if f.out == "" {
		f.out = filepath.Join("runs", time.Now().Format("20060102-150405"))
	}
	return f, nil
}

// selectScenarios keeps the scenarios named in spec ("a,b,c"), in catalog
// order (scenarios.Select); an empty spec keeps the whole catalog. An
// unknown name is an error that lists the names there are.
func selectScenarios(spec string) ([]runner.Scenario, error) {
	list, err := scenarios.Select(splitList(spec)...)
	if err != nil {
		return nil, fmt.Errorf("--scenario: %w", err)
	}
	return list, nil
}

func fail(err error) int {
	if errors.Is(err, errHelp) {
		return 0
	}
	fmt.Fprintf(os.Stderr, "outboxchaos: %v\n", err)
	return 3
}

func cmdRun(ctx context.Context, args []string) int {
	f, err := parseRunFlags("run", args, true)
	if err != nil {
		return fail(err)
	}
	s, err := scenarios.Get(f.scenario)
	if err != nil {
		return fail(err)
	}
	out, err := runAll(ctx, f, []runner.Scenario{s}, false)
	if err != nil {
		return fail(err)
	}
	printDeclarations(os.Stdout, []string{s.Name}, out)
	return runner.ExitCode(out[0], nil)
}

func cmdChaos(ctx context.Context, args []string) int {
	f, err := parseRunFlags("chaos", args, false)
	if err != nil {
		return fail(err)
	}
	selected, err := selectScenarios(f.scenario)
	if err != nil {
		return fail(err)
	}
	list, err := shard(selected, f.shard)
	if err != nil {
		return fail(err)
	}
	start := time.Now()
	outs, err := runAll(ctx, f, list, true)
	if err != nil {
		return fail(err)
	}
	worst, tally := foldOutcomes(outs)
	fmt.Printf("chaos: %d scenarios in %s: %s; summary %s\n", len(outs), time.Since(start).Round(time.Second), tally, filepath.Join(f.out, "index.html"))
	printDeclarations(os.Stdout, scenarioNames(list), outs)
	return worst
}

// runAll opens one environment and runs each scenario in its own folder.
func runAll(ctx context.Context, f runFlags, list []runner.Scenario, summary bool) ([]runner.Outcome, error) {
	a, err := adapters.Open(f.adapter)
	if err != nil {
		return nil, err
	}
	cfg := env.ConfigFromEnv()
	cfg.RedisPersistence = true // redis-restart must not lose acknowledged adds
	// A dispatcher that declares durability: wait needs a replica its WAIT counts.
	cfg.RedisReplica = a.Capabilities().Durability == supervisor.DurabilityWait
	e, err := env.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	var outs []runner.Outcome
	var links []reports.RunLink
	var skipped []reports.SkippedRun
	for i, s := range list {
		dir := f.out
		if summary {
			dir = filepath.Join(f.out, s.Name)
		}
		seed := f.seed + int64(i)
		o, res, err := runAndRender(ctx, runner.Options{
			Scenario: s, Adapter: a, Env: e, Seed: seed, Out: dir, Progress: os.Stderr,
			Command: runner.ReplayCommand(s.Name, f.adapter, seed, dir),
		})
		if err != nil {
			return outs, err
		}
		outs = append(outs, o)
		if o.Skipped == "" {
			links = append(links, reports.RunLink{Path: s.Name, Results: res})
		} else {
			skipped = append(skipped, reports.SkippedRun{Scenario: s.Name, Why: o.Skipped, Declarations: o.Declarations})
		}
		if ctx.Err() != nil {
			return outs, ctx.Err()
		}
	}
	if summary && len(links) > 0 {
		if err := reports.WriteSummary(f.out, links, skipped...); err != nil {
			return outs, err
		}
	}
	return outs, nil
}

// runAndRender runs one scenario, writes its report (index.html,
// results.json, junit.xml) into the run folder from the history and the
// results the run returned, and says how it went on stderr. The outcome it
// returns keeps no history: the summary needs only the results.
func runAndRender(ctx context.Context, opts runner.Options) (runner.Outcome, verdict.Results, error) {
	name, start := opts.Scenario.Name, time.Now()
	o, err := runner.Run(ctx, opts)
	if err != nil {
		return o, verdict.Results{}, err
	}
	if o.Skipped != "" {
		fmt.Fprintf(os.Stderr, "%s: SKIPPED: %s%s\n", name, o.Skipped, skipHint(o))
		return o, verdict.Results{}, nil
	}
	res, err := reports.WriteRunResults(o.Dir, o.History, o.Results)
	if err != nil {
		return o, res, fmt.Errorf("%s report: %w", name, err)
	}
	o.History, o.Declarations = history.Run{}, res.Declarations
	fmt.Fprintf(os.Stderr, "%s: %s in %s%s\n", name, strings.ToUpper(string(o.Verdict)), time.Since(start).Round(100*time.Millisecond), reasonSuffix(o.Verdict, o.Reason))
	return o, res, nil
}

// scenarioNames are the names of list, in order.
func scenarioNames(list []runner.Scenario) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Name
	}
	return out
}

// shard keeps the i-th of n round-robin slices of the catalog.
func shard(list []runner.Scenario, spec string) ([]runner.Scenario, error) {
	if spec == "" {
		return list, nil
	}
	i, n, err := parseShard(spec)
	if err != nil {
		return nil, err
	}
	var out []runner.Scenario
	for k, s := range list {
		if k%n == i-1 {
			out = append(out, s)
		}
	}
	return out, nil
}

func parseShard(spec string) (int, int, error) {
	a, b, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 1 <= i <= n, e.g. 2/4", spec)
	}
	return i, n, nil
}

func cmdList(ctx context.Context, args []string) int {
	fs := newFlags("list")
	if err := parse(fs, "list\n\nprints the scenario catalog: each name and what it breaks", args); err != nil {
		return fail(err)
	}
	if fs.NArg() > 0 {
		return fail(errors.New("list takes no arguments"))
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	for _, s := range scenarios.All() {
		fmt.Fprintf(w, "%s\t%s\n", s.Name, s.Description)
	}
	w.Flush()
	return 0
}

func cmdReport(ctx context.Context, args []string) int {
	fs := newFlags("report")
	if err := parse(fs, "report DIR\n\nre-checks the history stored in the run folder DIR and re-renders its report", args); err != nil {
		return fail(err)
	}
	args = fs.Args()
	if len(args) != 1 {
		return fail(errors.New("report: give exactly one run folder, e.g. outboxchaos report runs/20261129-101500/baseline"))
	}
	run, err := history.Load(args[0])
	if err != nil {
		return fail(err)
	}
	results := check.Evaluate(run)
	res, err := reports.WriteRunResults(args[0], run, results)
	if err != nil {
		return fail(err)
	}
	v, why := check.Decide(results, run.Meta.Exercises, check.CheckLanding(run))
	fmt.Printf("%s: %s%s (%s)\n", args[0], strings.ToUpper(string(v)), reasonSuffix(v, why), filepath.Join(args[0], "index.html"))
	o := runner.Outcome{Verdict: v, Reason: why, Declarations: res.Declarations}
	printDeclarations(os.Stdout, []string{run.Meta.Scenario}, []runner.Outcome{o})
	return runner.ExitCode(o, nil)
}

func cmdDoctor(ctx context.Context, args []string) int {
	fs := newFlags("doctor")
	adapter := fs.String("adapter", "", "also validate this `ADAPTER`: reference, mutant:NAME, or a manifest file")
	if err := parse(fs, "doctor [--adapter A]\n\nsays which environment will be used, which PostgreSQL an adapter whose store is PostgreSQL\nwould get, the versions found and what to install", args); err != nil {
		return fail(err)
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("doctor: unexpected argument %q", fs.Arg(0)))
	}
	if err := env.Doctor(ctx, env.ConfigFromEnv(), os.Stdout); err != nil {
		return fail(err)
	}
	if *adapter != "" {
		if err := checkAdapter(*adapter, os.Stdout); err != nil {
			return fail(err)
		}
	}
	return 0
}
