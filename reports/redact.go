package reports

import (
	"regexp"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Mask replaces every password Redact removes.
const Mask = "***"

var (
	// scheme://user:password@host — the password runs to the last '@' of the
	// token, as URL parsers and the MySQL driver read it.
	urlUserinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://[^\s:@/?#"'<>]*):([^\s"'<>]+)@`)
	// Go MySQL DSN: user:password@tcp(host)/db, user:password@unix(...)/db,
	// user:password@/db.
	mysqlDSN = regexp.MustCompile(`([^\s"'=:@/()<>]*):([^\s"'<>]+)@(\w*\(|/)`)
	// password=..., MYSQL_PWD=..., "password":"...", requirepass=...
	passwordParam = regexp.MustCompile(`(?i)((?:^|[^\w.\-])[\w.\-]*(?:password|passwd|pwd|requirepass|masterauth)["']?\s*[=:]\s*["']?)([^\s&;,"'}<>]+)`)
	// --password secret, --requirepass secret
	passwordFlag = regexp.MustCompile(`(?i)(--(?:password|passwd|pass|requirepass|masterauth)\s+)([^\s-][^\s]*)`)
)

// Redact removes passwords from every DSN, URL and password parameter in s:
// "user:pass@" becomes "user:***@", "password=pass" becomes "password=***".
// An empty password ("root:@tcp(...)") is left as it is. Redact errs on the
// side of removing too much: text that looks like a password goes.
func Redact(s string) string {
	if strings.IndexByte(s, '@') >= 0 {
		s = urlUserinfo.ReplaceAllString(s, "${1}:"+Mask+"@")
		s = mysqlDSN.ReplaceAllStringFunc(s, redactDSN)
	}
	if strings.ContainsAny(s, "=:") {
		s = passwordParam.ReplaceAllString(s, "${1}"+Mask)
	}
	if strings.Contains(s, "--") {
		s = passwordFlag.ReplaceAllString(s, "${1}"+Mask)
	}
	return s
}

func redactDSN(m string) string {
	sub := mysqlDSN.FindStringSubmatch(m)
	if sub[2] == Mask {
		return m
	}
	return sub[1] + ":" + Mask + "@" + sub[3]
}

// redactMap returns a copy of m with keys and values redacted.
func redactMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[Redact(k)] = Redact(v)
	}
	return out
}

// redactMeta returns the meta with every free-text field redacted.
func redactMeta(m history.Meta) history.Meta {
	m.Scenario = Redact(m.Scenario)
	m.Adapter = Redact(m.Adapter)
	m.Environment = Redact(m.Environment)
	m.Command = Redact(m.Command)
	m.Prefix = Redact(m.Prefix)
	m.Params = redactMap(m.Params)
	m.Versions = redactMap(m.Versions)
	m.Waived = redactMap(m.Waived)
	queues := make([]string, len(m.Queues))
	for i, q := range m.Queues {
		queues[i] = Redact(q)
	}
	m.Queues = queues
	return m
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// redactRun returns a copy of the run with every free-text field redacted:
// what the page draws comes from here, never from the caller's run.
func redactRun(run history.Run) history.Run {
	out := run
	out.Meta = redactMeta(run.Meta)
	out.Transitions = make([]history.Transition, len(run.Transitions))
	for i, t := range run.Transitions {
		t.Row, t.LockedBy, t.LockToken, t.OldLockToken = Redact(t.Row), Redact(t.LockedBy), Redact(t.LockToken), Redact(t.OldLockToken)
		t.LastError, t.OldLastError = Redact(t.LastError), Redact(t.OldLastError)
		out.Transitions[i] = t
	}
	out.Events = make([]history.Event, len(run.Events))
	for i, e := range run.Events {
		e.Type, e.JobID, e.Queue, e.Kind = Redact(e.Type), Redact(e.JobID), Redact(e.Queue), Redact(e.Kind)
		out.Events[i] = e
	}
	out.Stream = make([]history.StreamEntry, len(run.Stream))
	for i, s := range run.Stream {
		s.Queue, s.ID, s.Event, s.JobID, s.Name, s.Extra = Redact(s.Queue), Redact(s.ID), Redact(s.Event), Redact(s.JobID), Redact(s.Name), redactMap(s.Extra)
		out.Stream[i] = s
	}
	out.Keys = make([]history.KeyNote, len(run.Keys))
	for i, k := range run.Keys {
		k.Queue, k.JobID, k.Event, k.DataJobID, k.Data, k.Opts = Redact(k.Queue), Redact(k.JobID), Redact(k.Event), Redact(k.DataJobID), Redact(k.Data), Redact(k.Opts)
		out.Keys[i] = k
	}
	out.Takes = make([]history.Take, len(run.Takes))
	for i, t := range run.Takes {
		t.Queue, t.JobID, t.DataJobID, t.Worker = Redact(t.Queue), Redact(t.JobID), Redact(t.DataJobID), Redact(t.Worker)
		out.Takes[i] = t
	}
	out.Processes = make([]history.ProcessEvent, len(run.Processes))
	for i, p := range run.Processes {
		p.Instance, p.Action, p.Detail = Redact(p.Instance), Redact(p.Action), Redact(p.Detail)
		out.Processes[i] = p
	}
	out.Faults = redactFaults(run.Faults)
	out.Gaps = redactGaps(run.Gaps)
	out.Final = redactFinal(run.Final)
	return out
}

func redactFinal(f history.Final) history.Final {
	out := f
	out.Outbox = make([]history.OutboxRow, len(f.Outbox))
	for i, r := range f.Outbox {
		r.Type, r.JobID, r.Status, r.LastError = Redact(r.Type), Redact(r.JobID), Redact(r.Status), Redact(r.LastError)
		out.Outbox[i] = r
	}
	out.Jobs = make([]history.JobRow, len(f.Jobs))
	for i, j := range f.Jobs {
		j.ID, j.Queue, j.Status = Redact(j.ID), Redact(j.Queue), Redact(j.Status)
		out.Jobs[i] = j
	}
	out.Queues = make(map[string]history.QueueScan, len(f.Queues))
	for name, q := range f.Queues {
		scan := history.QueueScan{Lists: make(map[string][]string, len(q.Lists)), Jobs: make(map[string]history.JobHash, len(q.Jobs))}
		for list, ids := range q.Lists {
			red := make([]string, len(ids))
			for i, id := range ids {
				red[i] = Redact(id)
			}
			scan.Lists[list] = red
		}
		for id, h := range q.Jobs {
			h.Name, h.Data, h.Opts, h.DataJobID = Redact(h.Name), Redact(h.Data), Redact(h.Opts), Redact(h.DataJobID)
			scan.Jobs[Redact(id)] = h
		}
		out.Queues[Redact(name)] = scan
	}
	return out
}
