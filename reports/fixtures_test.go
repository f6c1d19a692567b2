package reports

import (
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// The stored runs under testdata/runs (at the repository root, so checker
// tests can replay them too) are written from these generators by
// `go test ./reports -run TestStoredRuns -update`. Their checker results are
// hand-made here and stored beside them as checks.json.

var fixtureT0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func fixtureMeta(scenario string, seed int64, adapter, command string) history.Meta {
	return history.Meta{
		Scenario: scenario, Seed: seed, Adapter: adapter, Environment: "local", Command: command,
		Versions: map[string]string{"mariadb": "11.4.2-MariaDB", "redis": "7.2.4", "go": "go1.26.8", "outboxchaos": "dev"},
		Prefix:   "bull", Queues: []string{"ai-default", "ai-bulk"},
		Tuning: history.Tuning{
			PollInterval: history.Duration(50 * time.Millisecond), BatchSize: 100, Lease: history.Duration(2 * time.Second),
			MaxAttempts: 5, BackoffBase: history.Duration(100 * time.Millisecond), BackoffMax: history.Duration(5 * time.Second),
			PublishTimeout: history.Duration(time.Second),
		},
		Started: fixtureT0, Consumer: true, RemoveOnEnd: true,
	}
}

func queueOf(i int64) string {
	if i%4 == 0 {
		return "ai-bulk"
	}
	return "ai-default"
}

// happyPath dispatches event i normally: claim, add, publish, consume.
func (b *runBuilder) happyPath(i int64, inst string, claimAt time.Time, extra time.Duration) {
	tok := b.claim(i, inst, 1, claimAt, history.StatusPending, "")
	addAt := claimAt.Add(1800*time.Microsecond + extra)
	b.add(i, queueOf(i), addAt)
	b.publish(i, inst, tok, 1, addAt.Add(1300*time.Microsecond+extra))
	b.consume(i, queueOf(i), "w1", addAt.Add(9*time.Millisecond))
}

// passBaseline: two instances, 40 events, no fault, every invariant holds.
func passBaseline() (history.Run, []check.Result) {
	m := fixtureMeta("baseline", 42, "reference", "outboxchaos run --scenario baseline --seed 42 --adapter reference --env local --out runs/baseline")
	m.Params = map[string]string{"events": "40", "rate": "20/s", "instances": "2"}
	m.Exercises = []string{"I1", "I2"}
	b := newRunBuilder(m)
	b.process("d1", "start", b.at(0), 4101, "")
	b.process("d2", "start", b.at(2), 4102, "")
	for i := int64(1); i <= 40; i++ {
		produced := b.at(200 + 50*float64(i-1))
		b.produce(i, history.KindValid, "ai.job.enqueue", queueOf(i), produced)
		inst := "d1"
		if i%2 == 0 {
			inst = "d2"
		}
		b.happyPath(i, inst, produced.Add(time.Duration(20+i%3*7)*time.Millisecond), 0)
	}
	b.run.Meta.Healed = b.at(2200)
	for _, inst := range []string{"d1", "d2"} {
		b.process(inst, "term", b.at(2300), 0, "")
		b.process(inst, "exit", b.at(2340), 0, "exit status 0")
	}
	b.run.Meta.Ended, b.run.Meta.Quiesced = b.at(2400), true
	reasons := map[string]string{
		"I1": "40 jobs created, each exactly once", "I2": "all 40 valid events published",
		"I3": "every published event has exactly one job; no job without a published event",
		"I4": "the run produced no poison events", "I5": "no overlapping claims; every finalize by the current owner",
		"I6": "the run had no transient failure", "I7": "no event reached the maximum of 5 attempts", "I8": "no dead owner's claim expired",
		"I9": "no job hash was written after its creation",
	}
	results := allPass(reasons)
	for _, i := range []int{3, 5, 6, 7} { // I4, I6, I7, I8: nothing happened for them to check
		results[i].Verdict = check.NotExercised
	}
	return b.finish(), results
}

func allPass(reasons map[string]string) []check.Result {
	var out []check.Result
	for _, c := range check.All() {
		out = append(out, check.Result{ID: c.ID, Name: c.Name, Verdict: check.Pass, Reason: reasons[c.ID]})
	}
	return out
}

// failed is invariant id (named as check.All names it) failed for reason,
// with its violations.
func failed(id, reason string, vs ...check.Violation) check.Result {
	for _, c := range check.All() {
		if c.ID == id {
			return check.Result{ID: id, Name: c.Name, Verdict: check.Fail, Reason: reason, Violations: vs}
		}
	}
	panic("no invariant " + id)
}

// failSeveral: a foreign dispatcher with three bugs under a random schedule.
// A lost Redis reply makes d1 retry event 7 after the consumer already
// completed and removed its job, so d2 adds it again (I1); d3 is killed
// holding event 23 and nobody recovers the claim (I2, I8); poison event 31
// is retried with a permanent reason (I4). A keyspace gap leaves I9 unknown.
func failSeveral() (history.Run, []check.Result) {
	m := fixtureMeta("random", 1337, "manifest:examples/node-bullmq",
		"outboxchaos run --scenario random --seed 1337 --adapter examples/node-bullmq/adapter.yaml --env local --out runs/random-1337")
	m.Params = map[string]string{"events": "60", "instances": "3", "rate": "20/s",
		"schedule": "lost-reply redis/d1 @0.51s; kill d3 @1.349s restart @1.65s; latency mysql 100ms±20ms @2.4s for 1s"}
	m.Waived = map[string]string{"I6": "backoff timing is not asserted under injected MySQL latency"}
	b := newRunBuilder(m)
	for i, inst := range []string{"d1", "d2", "d3"} {
		b.process(inst, "start", b.at(float64(i)), 5101+i, "")
	}
	b.fault("lost-reply", "redis/d1", b.at(510), b.at(1525), map[string]string{"command": "add", "count": "1"})
	b.fault("kill", "d3", b.at(1349), b.at(1650), map[string]string{"signal": "SIGKILL", "restart": "true"})
	b.fault("latency", "mysql", b.at(2400), b.at(3400), map[string]string{"latency": "100ms", "jitter": "20ms"})
	b.process("d3", "kill", b.at(1350), 5103, "signal: killed")
	b.process("d3-r1", "start", b.at(1650), 5177, "restart of d3")
	for i := int64(1); i <= 60; i++ {
		b.failSeveralEvent(i)
	}
	b.run.Gaps = []history.Gap{{Source: "keyspace", At: b.at(2600), Detail: "pub/sub connection dropped for 320ms; job keys written meanwhile were not seen"}}
	b.run.Meta.Healed = b.at(3500)
	for _, inst := range []string{"d1", "d2", "d3-r1"} {
		b.process(inst, "term", b.at(6000), 0, "")
		b.process(inst, "exit", b.at(6040), 0, "exit status 0")
	}
	b.run.Meta.Ended, b.run.Meta.Quiesced = b.at(6100), false
	return b.finish(), failSeveralResults(b)
}

func (b *runBuilder) failSeveralEvent(i int64) {
	produced := b.at(200 + 50*float64(i-1))
	claimAt := produced.Add(time.Duration(20+i%3*7) * time.Millisecond)
	ms := float64(claimAt.Sub(b.t0).Milliseconds())
	var extra time.Duration
	if ms >= 2400 && ms < 3400 {
		extra = 100 * time.Millisecond
		claimAt = claimAt.Add(extra)
	}
	switch i {
	case 7:
		b.produce(i, history.KindValid, "ai.job.enqueue", queueOf(i), produced)
		b.lostReplyDuplicate(i)
		return
	case 19:
		b.produce(i, history.KindQueueDenied, "ai.job.enqueue", "ai-secret", produced)
		tok := b.claim(i, "d1", 1, claimAt, history.StatusPending, "")
		b.fail(i, "d1", tok, 1, claimAt.Add(2*time.Millisecond), `queue "ai-secret" is not allowed`, "")
		return
	case 23:
		b.produce(i, history.KindValid, "ai.job.enqueue", queueOf(i), produced)
		b.claim(i, "d3", 1, b.at(1322), history.StatusPending, "") // then d3 is killed; nobody recovers it
		return
	case 31:
		b.produce(i, history.KindUnknownType, "ai.job.reindex", queueOf(i), produced)
		b.poisonRetried(i)
		return
	}
	b.produce(i, history.KindValid, "ai.job.enqueue", queueOf(i), produced)
	b.happyPath(i, failSeveralClaimer(i, ms), claimAt, extra)
}

// failSeveralClaimer: round robin, except that d1 is stuck on event 7's
// lost reply from 0.51s to 1.52s and d3 is dead from 1.35s to 1.65s.
func failSeveralClaimer(i int64, ms float64) string {
	inst := []string{"d3", "d1", "d2"}[i%3]
	switch {
	case inst == "d1" && ms >= 510 && ms < 1525:
		return "d2"
	case inst == "d3" && ms >= 1349 && ms < 1650:
		return "d2"
	case inst == "d3" && ms >= 1650:
		return "d3-r1"
	}
	return inst
}

func (b *runBuilder) lostReplyDuplicate(i int64) {
	q := queueOf(i)
	tok := b.claim(i, "d1", 1, b.at(520), history.StatusPending, "")
	b.add(i, q, b.at(522))
	b.consume(i, q, "w1", b.at(531))
	errText := "publish " + jobName(i) + ": redis: i/o timeout after 1s"
	b.retry(i, "d1", tok, 1, b.at(1522), errText, 100*time.Millisecond, "")
	tok2 := b.claim(i, "d2", 2, b.at(1640), history.StatusPending, "")
	b.add(i, q, b.at(1642))
	b.publish(i, "d2", tok2, 2, b.at(1645))
	b.consume(i, q, "w1", b.at(1651))
}

func (b *runBuilder) poisonRetried(i int64) {
	errText := `unknown event type "ai.job.reindex"`
	tok := b.claim(i, "d1", 1, b.at(1720), history.StatusPending, "")
	b.retry(i, "d1", tok, 1, b.at(1722), errText, 100*time.Millisecond, "")
	tok = b.claim(i, "d2", 2, b.at(1830), history.StatusPending, "")
	b.retry(i, "d2", tok, 2, b.at(1832), errText, 200*time.Millisecond, errText)
	tok = b.claim(i, "d1", 3, b.at(2040), history.StatusPending, "")
	b.fail(i, "d1", tok, 3, b.at(2042), errText+" (gave up after 3 attempts)", errText)
}

func step(b *runBuilder, ms float64, source, text string) check.Line {
	return check.Line{At: b.at(ms), Source: source, Text: text}
}

func failSeveralResults(b *runBuilder) []check.Result {
	r := allPass(map[string]string{
		"I3": "every published event has a job; no job without a published event",
		"I5": "no overlapping claims; every finalize by the current owner",
		"I6": "every transient failure moved available_at out by a growing backoff",
		"I7": "no event retried past 5 attempts",
	})
	r[0] = failed("I1", "1 job created more than once", check.Violation{
		EventID: 7, JobID: "job-0007", Instances: []string{"d1", "d2"},
		Summary: "Job job-0007 was created in BullMQ twice: d1 added it, lost Redis's reply and put event 7 back to pending, and because the consumer had already completed and removed the job, d2's retry added it again.",
		Steps: []check.Line{
			step(b, 510, "fault", "lost-reply on redis/d1 begins: the reply to d1's next job add is dropped"),
			step(b, 520, "mysql", "d1 claimed event 7 (attempt 1, token d1-7-1, lease until 10:00:02.520)"),
			step(b, 522, "redis", "job job-0007 added to ai-default (1st creation)"),
			step(b, 531, "consumer", "w1 took job-0007; it completed and BullMQ removed it (removeOnComplete)"),
			step(b, 1522, "mysql", `d1 put event 7 back to pending: "publish job-0007: redis: i/o timeout after 1s"`),
			step(b, 1640, "mysql", "d2 claimed event 7 (attempt 2, token d2-7-2)"),
			step(b, 1642, "redis", "job job-0007 added to ai-default again (2nd creation)"),
			step(b, 1645, "mysql", "d2 marked event 7 published"),
			step(b, 1651, "consumer", "w1 took job-0007 a second time"),
		},
	})
	r[1] = failed("I2", "1 valid event not published after heal and drain", check.Violation{
		EventID: 23, JobID: "job-0023", Instances: []string{"d3"},
		Summary: "Event 23 was never published: it is still processing under d3's claim, although d3 was killed at 10:00:01.350 and its lease ran out at 10:00:03.322.",
		Steps: []check.Line{
			step(b, 1322, "mysql", "d3 claimed event 23 (attempt 1, token d3-23-1, lease until 10:00:03.322)"),
			step(b, 1349, "fault", "kill d3 begins"),
			step(b, 1350, "process", "d3 killed (SIGKILL) while holding event 23"),
			step(b, 3322, "mysql", "d3's lease on event 23 ran out"),
			step(b, 3500, "fault", "every fault healed"),
			step(b, 6100, "mysql", "final scan: event 23 still processing, locked_by d3, attempts 1; job job-0023 still created and not in BullMQ"),
		},
	})
	r[3] = failed("I4", "1 poison event retried", check.Violation{
		EventID: 31, JobID: "job-0031", Instances: []string{"d1", "d2"},
		Rule:    "docs/contract.md §2 step 6: a permanent failure is failed at once, with the reason in last_error, no BullMQ job and no retry",
		Summary: `Poison event 31 (unknown event type "ai.job.reindex") was put back to pending twice with that permanent reason and failed only on attempt 3; it should have failed on its first attempt.`,
		Steps: []check.Line{
			step(b, 1720, "mysql", "d1 claimed event 31 (attempt 1)"),
			step(b, 1722, "mysql", `d1 put event 31 back to pending (unknown event type "ai.job.reindex"), available_at +100ms`),
			step(b, 1830, "mysql", "d2 claimed event 31 (attempt 2)"),
			step(b, 1832, "mysql", `d2 put event 31 back to pending with the same permanent reason, available_at +200ms`),
			step(b, 2040, "mysql", "d1 claimed event 31 (attempt 3)"),
			step(b, 2042, "mysql", "d1 marked event 31 failed (attempt 3)"),
		},
	})
	r[5].Waived = b.run.Meta.Waived["I6"]
	r[7] = failed("I8", "1 orphaned claim never recovered", check.Violation{
		EventID: 23, JobID: "job-0023", Instances: []string{"d3"},
		Summary: "d3 died holding event 23; its lease ran out at 10:00:03.322, yet no instance took the claim over within poll interval + slack (550ms), nor by the end of the run 2.778s later.",
		Steps: []check.Line{
			step(b, 1322, "mysql", "d3 claimed event 23 (lease 2s, until 10:00:03.322)"),
			step(b, 1350, "process", "d3 killed (SIGKILL)"),
			step(b, 1650, "process", "d3 restarted as d3-r1"),
			step(b, 3322, "mysql", "lease on event 23 expired; d1, d2 and d3-r1 kept polling"),
			step(b, 3872, "mysql", "deadline for a takeover (expiry + 50ms poll + 500ms slack) passed with event 23 still held by d3"),
		},
	})
	r[8] = check.Result{ID: "I9", Name: "job untouched", Verdict: check.Unknown,
		Reason: "keyspace notifications had a gap at 10:00:02.600 (pub/sub connection dropped for 320ms): a job hash written then could not be seen"}
	return r
}
