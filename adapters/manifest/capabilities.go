package manifest

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"

	"github.com/outboxchaos/outboxchaos/harness/spelling"
)

// sink checks the BullMQ key prefix and queue allowlist the dispatcher uses.
func (l *loader) sink(r rawSink) (string, []string) {
	if strings.ContainsAny(r.Prefix, " \t\r\n") {
		l.ps.add("sink.prefix", "use a prefix without whitespace, like bull", "prefix %q contains whitespace", r.Prefix)
	}
	seen := map[string]bool{}
	for i, q := range r.Queues {
		field := fmt.Sprintf("sink.queues[%d]", i)
		switch {
		case strings.TrimSpace(q) == "" || strings.ContainsAny(q, ": \t\r\n,"):
			l.ps.add(field, "use a non-empty queue name without ':', ',' or whitespace", "queue name %q is not usable", q)
		case seen[q]:
			l.ps.add(field, "list each queue once", "queue %q is listed twice", q)
		}
		seen[q] = true
	}
	return r.Prefix, append([]string(nil), r.Queues...)
}

// capabilities checks the tuning names, and that every capability claimed
// can work: a tuning variable or the crash-point variables must reach the
// process, through pass_contract_env or a reference in start.env or args.
func (l *loader) capabilities(c supervisor.Capabilities, a *Adapter) supervisor.Capabilities {
	known := map[string]bool{}
	for _, v := range supervisor.TuningVariables() {
		known[v] = true
	}
	delivered := a.delivered()
	seen := map[string]bool{}
	var out supervisor.Capabilities
	for i, t := range c.Tuning {
		field := fmt.Sprintf("capabilities.tuning[%d]", i)
		switch {
		case !known[t]:
			l.ps.add(field, tuningFix(t), "%q is not a contract tuning variable", t)
		case seen[t]:
			l.ps.add(field, "list each variable once", "%s is listed twice", t)
		case !delivered[t]:
			l.ps.add(field, fmt.Sprintf("set start.pass_contract_env: true, or map it in start.env (MY_VAR: ${%s})", t),
				"the dispatcher is said to honour %s but never receives it", t)
		default:
			out.Tuning = append(out.Tuning, t)
		}
		seen[t] = true
	}
	if c.CrashPoints && !delivered[supervisor.EnvFailpoints] {
		l.ps.add("capabilities.crash_points", "set start.pass_contract_env: true, or map ${OUTBOX_FAILPOINTS} and ${OUTBOX_FAILPOINT_SEED} in start.env",
			"crash points are declared but the dispatcher never receives %s", supervisor.EnvFailpoints)
	}
	out.CrashPoints, out.GracefulTerm = c.CrashPoints, c.GracefulTerm
	out.Clock, out.Ordering = l.clock(c.Clock, a), l.ordering(c.Ordering)
	out.Durability = l.durability(c.Durability, delivered)
	return out
}

// clock checks capabilities.clock: how the harness can skew the
// dispatcher's wall clock (harness/clockskew). go-overlay needs a build
// step, which the harness runs with the time.Now overlay (GOFLAGS).
func (l *loader) clock(c string, a *Adapter) string {
	switch {
	case !clockskew.Known(c):
		l.ps.add("capabilities.clock", "use one of "+strings.Join(clockskew.Mechanisms(), ", ")+
			" (faketime for a process that reads the time through libc: Node.js, Python, the JVM; go-overlay for a Go program the build step compiles with go build)",
			"%q is not a clock mechanism", c)
	case c == clockskew.GoOverlay && a.build == nil:
		l.ps.add("capabilities.clock", "add a build step that runs go build (the harness adds the time.Now overlay to its GOFLAGS), or declare clock: none",
			"clock: go-overlay needs a build step: the overlay is applied when the dispatcher is compiled")
	case c == clockskew.None:
		return ""
	}
	return c
}

// ordering checks capabilities.ordering: "" or per-aggregate.
func (l *loader) ordering(o string) string {
	if o != "" && o != supervisor.OrderingPerAggregate {
		fix := "use per-aggregate (events of one aggregate, named by the payload's \"aggregate\", published in commit order), or leave it out"
		if c := spelling.Likely(o, []string{supervisor.OrderingPerAggregate}); c != "" {
			fix = "did you mean " + c + "? " + fix
		}
		l.ps.add("capabilities.ordering", fix, "%q is not an ordering promise", o)
		return ""
	}
	return o
}

// durability checks capabilities.durability: "" or wait, and that a
// dispatcher promising wait learns how many replicas to wait for.
func (l *loader) durability(d string, delivered map[string]bool) string {
	switch {
	case d == "":
		return ""
	case d != supervisor.DurabilityWait:
		fix := "use wait (it marks an event published only once OUTBOX_REDIS_REPLICAS replicas acknowledged the job, by WAIT), or leave it out"
		if c := spelling.Likely(d, []string{supervisor.DurabilityWait}); c != "" {
			fix = "did you mean " + c + "? " + fix
		}
		l.ps.add("capabilities.durability", fix, "%q is not a durability promise", d)
		return ""
	case !delivered[supervisor.EnvRedisReplicas]:
		l.ps.add("capabilities.durability", fmt.Sprintf("set start.pass_contract_env: true, or map it in start.env (MY_REPLICAS: ${%s})", supervisor.EnvRedisReplicas),
			"durability: wait is declared but the dispatcher never receives %s, the number of replicas to wait for", supervisor.EnvRedisReplicas)
		return ""
	}
	return d
}

func tuningFix(name string) string {
	all := supervisor.TuningVariables()
	if c := spelling.Likely(name, all); c != "" {
		return fmt.Sprintf("did you mean %s? Use names from: %s", c, strings.Join(all, ", "))
	}
	return "use names from: " + strings.Join(all, ", ")
}

// delivered returns the contract variables the dispatcher receives.
func (a *Adapter) delivered() map[string]bool {
	out := map[string]bool{}
	if a.passContract {
		for _, v := range ContractVariables() {
			out[v] = true
		}
	}
	for _, e := range a.env {
		for _, r := range e.value.refs() {
			out[r] = true
		}
	}
	for _, arg := range a.start.args {
		for _, r := range arg.refs() {
			out[r] = true
		}
	}
	return out
}
