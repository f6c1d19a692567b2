package history

import "github.com/outboxchaos/outboxchaos/harness/redact"

// Redact returns a copy of the run with every free-text field passed through
// redact.String; the caller's run is not modified. Write stores only what
// Redact returns, and the reports draw only from it, so a password that
// reached the history (a DSN in an error, a URL in a parameter) never
// reaches a file of the run folder. Redact is idempotent.
func Redact(run Run) Run {
	out := run
	out.Meta = RedactMeta(run.Meta)
	out.Events = redact.Slice(run.Events, func(e Event) Event {
		redact.Fields(&e.Type, &e.JobID, &e.Queue, &e.Kind)
		return e
	})
	out.Transitions = redact.Slice(run.Transitions, func(t Transition) Transition {
		redact.Fields(&t.Key, &t.LockedBy, &t.LockToken, &t.OldLockToken, &t.LastError, &t.OldLastError, &t.Writer)
		return t
	})
	out.Stream = redact.Slice(run.Stream, func(s StreamEntry) StreamEntry {
		redact.Fields(&s.Queue, &s.ID, &s.Event, &s.JobID, &s.Name)
		s.Extra = redact.Map(s.Extra)
		return s
	})
	out.Keys = redact.Slice(run.Keys, func(k KeyNote) KeyNote {
		redact.Fields(&k.Queue, &k.JobID, &k.Event, &k.DataJobID, &k.Data, &k.Opts)
		return k
	})
	out.Commands = redact.Slice(run.Commands, func(c Command) Command {
		redact.Fields(&c.Slot, &c.Name, &c.Reply)
		c.Jobs = redact.Strings(c.Jobs)
		return c
	})
	out.Takes = redact.Slice(run.Takes, func(t Take) Take {
		redact.Fields(&t.Queue, &t.JobID, &t.DataJobID, &t.Worker)
		return t
	})
	out.Processes = redact.Slice(run.Processes, func(p ProcessEvent) ProcessEvent {
		redact.Fields(&p.Instance, &p.Action, &p.Detail)
		return p
	})
	out.Faults = RedactFaults(run.Faults)
	out.Gaps = RedactGaps(run.Gaps)
	out.Final = redactFinal(run.Final)
	return out
}

// RedactMeta returns the meta with every free-text field redacted.
func RedactMeta(m Meta) Meta {
	redact.Fields(&m.Scenario, &m.Adapter, &m.Environment, &m.Command, &m.Prefix)
	m.Params, m.Versions, m.Waived = redact.Map(m.Params), redact.Map(m.Versions), redact.Map(m.Waived)
	m.Queues = redact.Strings(m.Queues)
	return m
}

// RedactFaults returns a redacted copy of the fault windows (never nil: a
// results.json lists "faults": [] for a run without any).
func RedactFaults(in []Fault) []Fault {
	if in == nil {
		in = []Fault{}
	}
	return redact.Slice(in, func(f Fault) Fault {
		f.Kind, f.Target, f.Params = redact.String(f.Kind), redact.String(f.Target), redact.Map(f.Params)
		return f
	})
}

// RedactGaps returns a redacted copy of the gaps (never nil, as faults).
func RedactGaps(in []Gap) []Gap {
	if in == nil {
		in = []Gap{}
	}
	return redact.Slice(in, func(g Gap) Gap {
		redact.Fields(&g.Source, &g.Detail)
		return g
	})
}

func redactFinal(f Final) Final {
	out := f
	out.Outbox = redact.Slice(f.Outbox, func(r OutboxRow) OutboxRow {
		redact.Fields(&r.Type, &r.JobID, &r.Status, &r.LastError)
		return r
	})
	out.Jobs = redact.Slice(f.Jobs, func(j JobRow) JobRow {
		redact.Fields(&j.ID, &j.Queue, &j.Status)
		return j
	})
	if f.Queues == nil {
		return out
	}
	out.Queues = make(map[string]QueueScan, len(f.Queues))
	for name, q := range f.Queues {
		scan := QueueScan{Lists: make(map[string][]string, len(q.Lists)), Jobs: make(map[string]JobHash, len(q.Jobs))}
		for list, ids := range q.Lists {
			scan.Lists[list] = redact.Strings(ids)
		}
		for id, h := range q.Jobs {
			redact.Fields(&h.Name, &h.Data, &h.Opts, &h.DataJobID)
			scan.Jobs[redact.String(id)] = h
		}
		out.Queues[redact.String(name)] = scan
	}
	return out
}
