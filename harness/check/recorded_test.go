package check

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// recorded is a real run recorded by `outboxchaos run` (or `make
// chaos-dialects`), trimmed to a few events (TestTrimRecordedRun), with the
// verdicts I1..I9 (I10 too when the run declared ordering) the checkers
// must still give it, and the kinds of return to pending its dispatcher's
// convention must still be read as (moves.go): a recovery that writes a
// reason stays a recovery, a release a release. They replay as porcupine
// replays its recorded histories.
type recorded struct {
	verdicts string
	shows    []move
	about    string
}

// recordedCases: the reference, dialects written independently of it (one
// per convention, all passing) and one failing run per bug class, from
// mutants and from the dialects' planted bugs. The dialects' passing runs
// come from `make chaos-dialects` (seed 1), the failing ones from `outboxchaos
// run --seed 1` with the plant's manifest.
var recordedCases = map[string]recorded{
	// Passing: each convention read for what it is.
	"recorded-reference-lease-expiry": {"PPPPPNNPP", []move{moveRecovery},
		"the reference under SIGKILLs at crash points: recoveries, and workers racing the publish's job update"},
	"recorded-reference-clock-skew": {"PPPPPNNNP", nil,
		"the reference, d2 10 s behind the database: its leases are NOW(6) + lease"},
	"recorded-base-ordering": {"PPPNPPNNPP", nil,
		"the mutants' bug-free base, declaring per-aggregate order: every aggregate in order"},
	"recorded-go-reason-lease-expiry": {"PPPPPNNPP", []move{moveRecovery},
		"go-reason, whose sweep recovers with 'lease expired, owner dN' and leaves available_at alone"},
	"recorded-node-owner-round-crash-window": {"PPPPPNNPP", []move{moveRecovery},
		"node-owner-round (real bullmq), each instance recovering expired claims at the start of its own round, with a reason"},
	"recorded-go-nolock-redis-latency": {"PPPPPNNNP", []move{moveRelease},
		"go-nolock (no lock_token), whose owner gives back a claim it cannot start within its safe window, 'released: lease nearly over'"},
	"recorded-go-cas-lease-expiry": {"PPPPPNNPP", []move{moveTakeover},
		"go-cas, whose compare-and-set claim takes an expired claim over directly, never through pending"},
	"recorded-go-single-crash-window": {"PPPPPPNPP", nil,
		"go-single, one event per transaction under a global Redis lock, killed in the crash window"},
	"recorded-node-attempts-at-failure-queue-error": {"PPPPPPPNP", []move{moveFailure},
		"node-attempts-at-failure (real bullmq), which counts attempts at each transient failure, not at the claim"},
	"recorded-node-dedupe-dedupe-horizon": {"PPPPPNNPP", nil,
		"node-dedupe, BullMQ 5's own deduplication keeping a re-add a no-op after the consumer removed the job"},
	"recorded-reference-redis-loses-adds": {"PPPPPNNNP", nil,
		"the reference while Redis acknowledged adds with its append-only file off and then lost them in a quiet restart: the lost adds are Redis's"},
	// Passing, outboxes of other shapes (issue 22).
	"recorded-go-timestamps-crash-window": {"PPPAPNNPA", []move{moveTakeover},
		"go-timestamps: no status column (processed_at, locked_until, attempt counters), no owner column, a Redis stream, at-least-once; claims told by their attempts and writers"},
	"recorded-go-timestamps-redis-loses-adds": {"PPPAPPNNA", nil,
		"go-timestamps (a Redis stream) while Redis acknowledged XADDs with its append-only file off and lost them in a quiet restart: the stream went back, and the entries past what it kept are Redis's losses"},
	"recorded-go-cursor-commit-order-gaps": {"PPPAAAAAP", nil,
		"go-cursor: an offsets table whose cursor waits out commit-order gaps; no claims, so I4-I8 are not applicable"},
	// Passing on PostgreSQL (store: postgres, issue 23).
	"recorded-go-pgskip-zombie": {"PPPAPNNPP", []move{moveTakeover},
		"go-pgskip on PostgreSQL: SKIP LOCKED claims with a lease on clock_timestamp(); a paused owner's session ended by the server before its lease, its rows taken over directly"},
	// Failing: one run per bug class, caught by its invariant.
	"recorded-go-pgskip-backoff-at-tx-start": {"PPPAPFNNP", []move{moveFailure},
		"I6: go-pgskip planted backoff-at-tx-start, lost-reply-redis on PostgreSQL: available_at = now() + backoff, now() the delivery transaction's start, before an add that waited out the publish timeout"},
	"recorded-go-cursor-trusts-id": {"PFPAAAAAP", nil,
		"I2: go-cursor planted trusts-id, commit-order-gaps: the cursor passes ids whose transactions commit behind it"},
	"recorded-node-owner-round-no-job-id": {"FPPPPNNPP", nil,
		"I1: node-owner-round planted no-job-id, crash-window: the re-add after a kill makes a second job"},
	"recorded-mutant-cursor-claim": {"PFPFPNNNPN", nil,
		"I2: mutant cursor-claim, commit-order-gaps: events committed behind a higher claimed id are never claimed"},
	"recorded-mutant-published-not-queued": {"PFFPPNNPP", nil,
		"I3: mutant published-not-queued, crash-window: jobs never queued"},
	"recorded-go-nolock-mark-before-enqueue": {"PPFPPNNNP", []move{moveRelease},
		"I3: go-nolock planted mark-before-enqueue, redis-outage: published, and the add then failed"},
	"recorded-go-reason-poison-as-transient": {"PPPFPPPNP", []move{moveFailure},
		"I4: go-reason planted poison-as-transient, poison: permanent failures retried with backoff"},
	"recorded-go-cas-select-then-update": {"PPPPFNNNP", []move{moveTakeover},
		"I5: go-cas planted select-then-update, contention: two owners claim one row"},
	"recorded-node-attempts-at-failure-recovery-overwrites-finalized": {"PPPPFNNPP", []move{moveRewrite},
		"I5: node-attempts-at-failure planted recovery-overwrites-finalized, zombie: a recovery by id rewrites a published row"},
	"recorded-mutant-app-clock-lease": {"PPPPFNNPPN", nil,
		"I5: mutant app-clock-lease, clock-skew: leases ending before their claims"},
	"recorded-mutant-no-backoff": {"PFPPPFPNP", []move{moveFailure},
		"I6: mutant no-backoff, redis-outage: transient failures with available_at = NOW(6)"},
	"recorded-go-cas-unbounded-attempts": {"PPPPPPFNP", []move{moveFailure},
		"I7: go-cas planted unbounded-attempts, redis-outage: retried past max attempts"},
	"recorded-go-cas-no-lease-recovery": {"PFPFPNNFP", nil,
		"I8: go-cas planted no-lease-recovery, crash-window: a dead owner's claims stay processing"},
	"recorded-go-single-overwrite-job-data": {"PPPPPPNPF", nil,
		"I9: go-single planted overwrite-job-data, crash-window: the re-add rewrites the job's data"},
	"recorded-mutant-order-after-backoff": {"PPPNPPNNPF", nil,
		"I10: mutant order-after-backoff, ordering: a later event of an aggregate published while an earlier one waits out its backoff"},
}

func TestRecordedRuns(t *testing.T) {
	for name, c := range recordedCases {
		t.Run(name, func(t *testing.T) {
			run := loadStored(t, name)
			results := Evaluate(run)
			for _, r := range results {
				checkResultShape(t, r)
			}
			require.Equal(t, c.verdicts, letters(results), "%s\nverdicts I1..I9 (and I10 when declared); results: %s", c.about, describe(results))
			counts := moveCounts(run)
			for _, m := range c.shows {
				require.Positive(t, counts[m], "%s: no transition read as a %s; moves read: %v", c.about, m, counts)
			}
		})
	}
	r := Check(I8, loadStored(t, "recorded-reference-lease-expiry"))
	require.NotNil(t, r.Takeover)
	require.Positive(t, r.Takeover.Count)
	require.LessOrEqual(t, r.Takeover.P50, r.Takeover.P99)
	require.LessOrEqual(t, r.Takeover.P99, r.Takeover.Max)
}

// moveCounts counts the moves of every event of run, by kind.
func moveCounts(run history.Run) map[move]int {
	out := map[move]int{}
	for _, ms := range newIndex(run).moves {
		for _, m := range ms {
			out[m]++
		}
	}
	return out
}

// TestTrimRecordedRun writes a trimmed copy of a recorded run folder when
// OUTBOXCHAOS_TRIM names one: OUTBOXCHAOS_TRIM=SRC:NAME:FIRST keeps events
// 1..FIRST, the first FIRST events with a takeover, a recovery, a release
// or a transient failure (each kind counted on its own), the first poison
// events (a third of FIRST, at least one), the first event whose job a
// dispatcher moved created -> queued, and the events of
// the first two violations of each invariant (so a failing run still fails
// for the same events), and stores it as testdata/histories/NAME.
func TestTrimRecordedRun(t *testing.T) {
	trimFromEnv(t, "OUTBOXCHAOS_TRIM", "FIRST", "run", func(run history.Run, first int64) map[int64]bool {
		ix := newIndex(run)
		keep := map[int64]bool{}
		kept := map[move]int64{}
		poison, queued := int64(0), false
		for _, e := range ix.events {
			if e.ID <= first {
				keep[e.ID] = true
			}
			if !queued && movedToQueued(ix.jobs[e.JobID]) {
				keep[e.ID], queued = true, true // I3 asks whether any job was (movesToQueued)
			}
			if isPoison(e.Kind) && poison < max(1, first/3) {
				keep[e.ID] = true
				poison++
			}
			for _, m := range ix.moves[e.ID] {
				if (m == moveTakeover || m == moveRecovery || m == moveRelease || m == moveFailure) && kept[m] < first {
					keep[e.ID] = true
					kept[m]++
				}
			}
		}
		for _, l := range ix.lost[:min(len(ix.lost), int(max(1, first/3)))] {
			for _, id := range l.Events {
				keep[id] = true // the jobs Redis lost
			}
		}
		byJob := map[string]int64{}
		for _, e := range ix.events {
			byJob[e.JobID] = e.ID
		}
		for _, r := range Evaluate(run) {
			for _, v := range r.Violations[:min(2, len(r.Violations))] {
				keep[v.EventID] = true
				if id, ok := byJob[v.JobID]; ok && v.JobID != "" {
					keep[id] = true
				}
			}
		}
		return keep
	})
}

// trimFromEnv is the body of every TestTrim*: when the variable env is set
// to SRC:NAME:N, it loads the run folder SRC, keeps the events choose picks
// for N, and stores the trimmed run as testdata/histories/NAME; unset, the
// test is skipped with what to set (what names the kind of run).
func trimFromEnv(t *testing.T, env, nName, what string, choose func(run history.Run, n int64) map[int64]bool) {
	t.Helper()
	usage := env + "=SRC:NAME:" + nName
	spec := os.Getenv(env)
	if spec == "" {
		t.Skipf("set %s to store a trimmed recorded %s", usage, what)
	}
	parts := strings.Split(spec, ":")
	require.Len(t, parts, 3, usage)
	run, err := history.Load(parts[0])
	require.NoError(t, err)
	keep := choose(run, itoaParse(t, parts[2]))
	trimmed := trimRun(run, keep)
	// A trim may drop the evidence a rule reads run-wide (that dispatchers
	// move jobs to queued at all, say): keep only one that judges alike.
	require.Equal(t, verdicts(run), verdicts(trimmed),
		"the trimmed run is judged otherwise than the whole run: keep more events (a larger %s)", nName)
	require.NoError(t, history.Write(filepath.Join(historiesDir, parts[1]), trimmed))
}

func itoaParse(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	for _, r := range s {
		require.True(t, r >= '0' && r <= '9', "FIRST must be a number: %q", s)
		n = n*10 + int64(r-'0')
	}
	return n
}

// trimRun keeps the events in keep and everything about them: their outbox
// transitions, their jobs' transitions, stream entries, key notes, takes and
// final rows and hashes. Faults, processes and gaps are kept whole.
func trimRun(run history.Run, keep map[int64]bool) history.Run {
	out := run
	jobs := map[string]bool{}
	out.Events = nil
	for _, e := range run.Events {
		if keep[e.ID] {
			out.Events = append(out.Events, e)
			jobs[e.JobID] = true
			if e.MessageID != "" {
				jobs[e.MessageID] = true
			}
		}
	}
	out.Transitions = nil
	for _, tr := range run.Transitions {
		// a cursor's records say when it passed each id: all are kept
		if (tr.Table == history.TableOutbox && keep[itoaParseRow(tr.Key)]) || (tr.Table == history.TableJobs && jobs[tr.Key]) ||
			tr.Table == history.TableCursor {
			out.Transitions = append(out.Transitions, tr)
		}
	}
	out.Appends = keptAppends(run.Appends, jobs)
	out.Final.Appends = keptAppends(run.Final.Appends, jobs)
	out.Stream, out.Keys, out.Takes = nil, nil, nil
	for _, s := range run.Stream {
		if jobs[s.JobID] {
			out.Stream = append(out.Stream, s)
		}
	}
	for _, k := range run.Keys {
		if jobs[k.JobID] || jobs[k.DataJobID] {
			out.Keys = append(out.Keys, k)
		}
	}
	for _, tk := range run.Takes {
		if jobs[tk.JobID] || jobs[tk.DataJobID] {
			out.Takes = append(out.Takes, tk)
		}
	}
	out.Commands = nil
	for _, c := range run.Commands {
		if len(c.Jobs) == 0 || slices.ContainsFunc(c.Jobs, func(j string) bool { return jobs[j] }) {
			out.Commands = append(out.Commands, c) // a failed statement names no job: kept
		}
	}
	appends := out.Final.Appends
	out.Final = trimFinal(run.Final, keep, jobs)
	out.Final.Appends = appends
	return out
}

// keptAppends are the sink messages of the kept jobs (by the payload's
// jobId or the message's own id).
func keptAppends(as []history.Append, jobs map[string]bool) []history.Append {
	var out []history.Append
	for _, a := range as {
		if jobs[a.DataJobID] || jobs[a.MessageID] {
			out = append(out, a)
		}
	}
	return out
}

func itoaParseRow(row string) int64 {
	var n int64
	for _, r := range strings.TrimSpace(row) {
		if r < '0' || r > '9' {
			return -1
		}
		n = n*10 + int64(r-'0')
	}
	return n
}

func trimFinal(f history.Final, keep map[int64]bool, jobs map[string]bool) history.Final {
	out := history.Final{At: f.At, Queues: map[string]history.QueueScan{}}
	for _, r := range f.Outbox {
		if keep[r.ID] {
			out.Outbox = append(out.Outbox, r)
		}
	}
	for _, r := range f.Jobs {
		if jobs[r.ID] {
			out.Jobs = append(out.Jobs, r)
		}
	}
	for q, scan := range f.Queues {
		ts := history.QueueScan{Lists: map[string][]string{}, Jobs: map[string]history.JobHash{}}
		for id, h := range scan.Jobs {
			if jobs[id] || jobs[h.DataJobID] {
				ts.Jobs[id] = h
			}
		}
		for name, ids := range scan.Lists {
			kept := []string{}
			for _, id := range ids {
				if _, ok := ts.Jobs[id]; ok || jobs[id] {
					kept = append(kept, id)
				}
			}
			ts.Lists[name] = kept
		}
		out.Queues[q] = ts
	}
	sort.SliceStable(out.Outbox, func(i, j int) bool { return out.Outbox[i].ID < out.Outbox[j].ID })
	return out
}

// requireNoFailure fails the test when any invariant fails on run.
func requireNoFailure(t *testing.T, run history.Run) {
	t.Helper()
	for _, res := range Evaluate(run) {
		require.NotEqual(t, Fail, res.Verdict, "%s: %s", res.ID, res.Reason)
	}
}

// Recorded ordering runs (seed 20261129, `go test ./scenarios -run
// 'order-after-backoff|ordering/mutant-base'`), trimmed to a few
// aggregates each by TestTrimRecordedAggregates:
//
//	recorded-mutant-order-after-backoff  later events published while an
//	                                     earlier one of their aggregate
//	                                     waited out its backoff
//	recorded-base-ordering               the base: every aggregate in order
func TestRecordedOrdering(t *testing.T) {
	bad := loadStored(t, "recorded-mutant-order-after-backoff")
	r := CheckOrdering(bad)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Regexp(t, `^Event \d+ of aggregate a-\w+-\d+ was published at [\d:.]+ before event \d+, committed before it, was done`, r.Violations[0].Summary)
	require.NotEmpty(t, r.Violations[0].Steps)

	good := loadStored(t, "recorded-base-ordering")
	r = CheckOrdering(good)
	require.Equal(t, Pass, r.Verdict, r.Reason)
	requireNoFailure(t, good)
	require.True(t, CheckLanding(good)[1].Met, "order-retry landed in the base's run too")

	good.Meta.Ordering = ""
	require.Equal(t, NotExercised, CheckOrdering(good).Verdict, "the same history without the declaration")
}

// TestTrimRecordedAggregates writes a trimmed copy of a recorded ordering
// run when OUTBOXCHAOS_TRIM_AGGREGATES=SRC:NAME:K: the events of its first
// K aggregates and of the aggregate of its first I10 violation, stored as
// testdata/histories/NAME.
func TestTrimRecordedAggregates(t *testing.T) {
	trimFromEnv(t, "OUTBOXCHAOS_TRIM_AGGREGATES", "K", "ordering run", func(run history.Run, k int64) map[int64]bool {
		aggs := map[string]bool{}
		for i, a := range aggregates(run.Events) {
			if int64(i) < k {
				aggs[a.key] = true
			}
		}
		if vs := CheckOrdering(run).Violations; len(vs) > 0 {
			for _, e := range run.Events {
				if e.ID == vs[0].EventID {
					aggs[e.Aggregate] = true
				}
			}
		}
		keep := map[int64]bool{}
		for _, e := range run.Events {
			if aggs[e.Aggregate] {
				keep[e.ID] = true
			}
		}
		return keep
	})
}

// Recorded clock-skew runs (seed 20261129, `go test ./scenarios -run
// 'app-clock-lease|clock-skew/reference'`), trimmed by TestTrimRecordedSkew:
//
//	recorded-mutant-app-clock-lease  d2r1, 10 s behind, writes leases that
//	                                 ended 8 s before its claims
//	recorded-reference-clock-skew    the reference, d2r1 10 s behind: its
//	                                 leases are NOW(6) + lease
func TestRecordedClockSkew(t *testing.T) {
	bad := loadStored(t, "recorded-mutant-app-clock-lease")
	r := Check(I5, bad)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Regexp(t, `^Event \d+ was claimed by d2r1 at [\d:.]+ with a lease ending at [\d:.]+, 8s before the claim on the database clock: the claim excluded nobody\. The harness had set d2r1's clock -10s off \(go-overlay\)\.$`, r.Violations[0].Summary)

	good := loadStored(t, "recorded-reference-clock-skew")
	requireNoFailure(t, good)
	require.Equal(t, Pass, Check(I5, good).Verdict)
	ls := CheckLanding(good)
	require.True(t, ls[0].Met, ls[0].Reason)
}

// TestTrimRecordedSkew writes a trimmed copy of a recorded clock-skew run
// when OUTBOXCHAOS_TRIM_SKEW=SRC:NAME:N: its first N events and the first N
// the skewed instance claimed, stored as testdata/histories/NAME.
func TestTrimRecordedSkew(t *testing.T) {
	trimFromEnv(t, "OUTBOXCHAOS_TRIM_SKEW", "N", "clock-skew run", func(run history.Run, n int64) map[int64]bool {
		ix := newIndex(run)
		keep := map[int64]bool{}
		skewed := int64(0)
		for _, e := range ix.events {
			if e.ID <= n {
				keep[e.ID] = true
			}
			for _, h := range ix.holds[e.ID] {
				if _, ok := skewOf(run, h.Owner, h.Start); ok && h.Owner != "" && skewed < n && !keep[e.ID] {
					keep[e.ID] = true
					skewed++
				}
			}
		}
		return keep
	})
}
