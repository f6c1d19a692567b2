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
	out.Events = mapEach(run.Events, func(e Event) Event {
		e.Type, e.JobID, e.Queue, e.Kind = redact.String(e.Type), redact.String(e.JobID), redact.String(e.Queue), redact.String(e.Kind)
		return e
	})
	out.Transitions = mapEach(run.Transitions, func(t Transition) Transition {
		t.Key, t.LockedBy, t.LockToken, t.OldLockToken = redact.String(t.Key), redact.String(t.LockedBy), redact.String(t.LockToken), redact.String(t.OldLockToken)
		t.LastError, t.OldLastError = redact.String(t.LastError), redact.String(t.OldLastError)
		return t
	})
	out.Stream = mapEach(run.Stream, func(s StreamEntry) StreamEntry {
		s.Queue, s.ID, s.Event, s.JobID, s.Name = redact.String(s.Queue), redact.String(s.ID), redact.String(s.Event), redact.String(s.JobID), redact.String(s.Name)
		s.Extra = redact.Map(s.Extra)
		return s
	})
	out.Keys = mapEach(run.Keys, func(k KeyNote) KeyNote {
		k.Queue, k.JobID, k.Event, k.DataJobID = redact.String(k.Queue), redact.String(k.JobID), redact.String(k.Event), redact.String(k.DataJobID)
		k.Data, k.Opts = redact.String(k.Data), redact.String(k.Opts)
		return k
	})
	out.Takes = mapEach(run.Takes, func(t Take) Take {
		t.Queue, t.JobID, t.DataJobID, t.Worker = redact.String(t.Queue), redact.String(t.JobID), redact.String(t.DataJobID), redact.String(t.Worker)
		return t
	})
	out.Processes = mapEach(run.Processes, func(p ProcessEvent) ProcessEvent {
		p.Instance, p.Action, p.Detail = redact.String(p.Instance), redact.String(p.Action), redact.String(p.Detail)
		return p
	})
	out.Faults = RedactFaults(run.Faults)
	out.Gaps = RedactGaps(run.Gaps)
	out.Final = redactFinal(run.Final)
	return out
}

// RedactMeta returns the meta with every free-text field redacted.
func RedactMeta(m Meta) Meta {
	m.Scenario, m.Adapter, m.Environment = redact.String(m.Scenario), redact.String(m.Adapter), redact.String(m.Environment)
	m.Command, m.Prefix = redact.String(m.Command), redact.String(m.Prefix)
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
	return mapEach(in, func(f Fault) Fault {
		f.Kind, f.Target, f.Params = redact.String(f.Kind), redact.String(f.Target), redact.Map(f.Params)
		return f
	})
}

// RedactGaps returns a redacted copy of the gaps (never nil, as faults).
func RedactGaps(in []Gap) []Gap {
	if in == nil {
		in = []Gap{}
	}
	return mapEach(in, func(g Gap) Gap {
		g.Source, g.Detail = redact.String(g.Source), redact.String(g.Detail)
		return g
	})
}

func redactFinal(f Final) Final {
	out := f
	out.Outbox = mapEach(f.Outbox, func(r OutboxRow) OutboxRow {
		r.Type, r.JobID, r.Status, r.LastError = redact.String(r.Type), redact.String(r.JobID), redact.String(r.Status), redact.String(r.LastError)
		return r
	})
	out.Jobs = mapEach(f.Jobs, func(j JobRow) JobRow {
		j.ID, j.Queue, j.Status = redact.String(j.ID), redact.String(j.Queue), redact.String(j.Status)
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
			h.Name, h.Data, h.Opts, h.DataJobID = redact.String(h.Name), redact.String(h.Data), redact.String(h.Opts), redact.String(h.DataJobID)
			scan.Jobs[redact.String(id)] = h
		}
		out.Queues[redact.String(name)] = scan
	}
	return out
}

// mapEach returns f applied to each element of in, nil for nil.
func mapEach[T any](in []T, f func(T) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
