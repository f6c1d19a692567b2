package draft

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
)

// colKind is the kind of column a contract key needs.
type colKind int

const (
	kindAny colKind = iota
	kindText
	kindInt
	kindTime
	kindPayload
	kindSerial // AUTO_INCREMENT integer
)

// keySpec describes one contract column: the names that are it, the words
// of a name that suggest it, and the kind of column it must be.
type keySpec struct {
	key      string
	required bool
	kind     colKind
	meaning  string   // what the column holds, for the draft's comments
	names    []string // names that are this column (the contract's first)
	words    []string // words of a name that suggest it
}

// outboxKeys and jobsKeys are the schema mapping's keys (harness/schema
// Outbox and Jobs; adapters/manifest schemaspec.go) in the manifest's order.
var outboxKeys = []keySpec{
	{"id", true, kindSerial, "the event's id, assigned by the database", []string{"id", "event_id", "message_id", "outbox_id"}, nil},
	{"event_type", true, kindText, "the event's type (ai.job.enqueue)", []string{"event_type", "type", "kind", "event_name", "message_type", "event", "topic"}, []string{"type", "kind", "event", "topic"}},
	{"aggregate_id", true, kindText, "the id of the job row the event is about", []string{"aggregate_id", "aggregate", "entity_id", "subject_id", "job_id", "task_id"}, []string{"aggregate", "job", "task", "entity", "subject", "ref"}},
	{"payload", true, kindPayload, `the event's JSON payload ({"jobId": ...})`, []string{"payload", "body", "data", "envelope", "message", "content", "args"}, []string{"payload", "body", "data", "envelope", "message", "content", "json"}},
	{"status", true, kindText, "the event's status word", []string{"status", "state"}, []string{"status", "state"}},
	{"attempts", false, kindInt, "how many attempts failed", []string{"attempts", "attempt", "attempt_count", "retries", "retry_count", "tries", "try_count", "failures", "failure_count"}, []string{"attempt", "attempts", "retries", "retry", "tries", "failures"}},
	{"available_at", false, kindTime, "when the event may be claimed next (backoff)", []string{"available_at", "next_attempt_at", "next_retry_at", "retry_at", "run_at", "scheduled_at", "not_before", "visible_at", "due_at", "process_after"}, []string{"available", "next", "retry", "scheduled", "before", "visible", "due", "after"}},
	{"locked_by", false, kindText, "the instance holding the claim", []string{"locked_by", "lock_owner", "owner", "worker_id", "worker", "claimed_by", "instance_id", "node_id", "leased_by", "lease_owner"}, []string{"locked", "lock", "owner", "worker", "claimed", "instance", "node", "leased"}},
	{"lock_token", false, kindText, "the fencing token of the current claim", []string{"lock_token", "token", "claim_token", "lease_token", "fence", "fencing_token"}, []string{"token", "fence", "fencing"}},
	{"locked_until", false, kindTime, "when the claim's lease ends", []string{"locked_until", "lock_until", "lease_until", "lease_expires_at", "lock_expires_at", "claimed_until", "lease_end", "visible_until"}, []string{"until", "expires", "expiry", "lease", "lock", "locked", "claimed"}},
	{"last_error", false, kindText, "the last failure's reason", []string{"last_error", "error", "error_message", "error_text", "failure_reason", "last_failure", "reason"}, []string{"error", "failure", "reason"}},
	{"published_at", false, kindTime, "when the event was published", []string{"published_at", "delivered_at", "sent_at", "dispatched_at", "processed_at", "done_at", "completed_at"}, []string{"published", "delivered", "sent", "dispatched", "processed", "done", "completed"}},
	{"created_at", false, kindTime, "when the event was written", []string{"created_at", "created", "inserted_at", "enqueued_at", "occurred_at"}, []string{"created", "inserted", "enqueued", "occurred"}},
}

var jobsKeys = []keySpec{
	{"id", true, kindText, "the job's id, also the BullMQ jobId", []string{"id", "job_id", "task_id"}, nil},
	{"queue", true, kindText, "the BullMQ queue the job goes to", []string{"queue_name", "queue", "queue_id", "channel", "topic", "lane"}, []string{"queue", "channel", "topic", "lane"}},
	{"status", true, kindText, "the job's status word", []string{"status", "state"}, []string{"status", "state"}},
}

// Table names that suggest a role.
var (
	outboxTableWords = []string{"outbox", "event", "events", "message", "messages", "outgoing"}
	jobsTableWords   = []string{"job", "jobs", "task", "tasks", "work"}
)

// pick is one proposed column for one contract key, with why.
type pick struct {
	key, column, reason string
	score               int
}

// tableGuess is the proposal for one table: its columns by key.
type tableGuess struct {
	table   schemaddl.Table
	picks   map[string]pick
	missing []string // required keys no column fits
	score   int
	reason  string
}

var (
	camelCase = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	nameSplit = regexp.MustCompile(`[^a-z0-9]+`)
)

// nameWords splits "retryAt" and "retry_at" into [retry at].
func nameWords(name string) []string {
	spaced := camelCase.ReplaceAllString(name, "$1 $2")
	return strings.Fields(nameSplit.ReplaceAllString(strings.ToLower(spaced), " "))
}

// fits reports whether column c can hold key k, and says what it is.
func fits(k keySpec, c schemaddl.Column) bool {
	switch k.kind {
	case kindText:
		return textTypes[c.Type]
	case kindInt:
		return integerTypes[c.Type]
	case kindTime:
		return c.Type == "datetime" || c.Type == "timestamp"
	case kindPayload:
		return c.Type == "json" || (textTypes[c.Type] && c.Type != "enum" && c.Type != "set") || strings.HasSuffix(c.Type, "blob")
	case kindSerial:
		return integerTypes[c.Type] && c.AutoIncrement
	}
	return true
}

var (
	textTypes    = map[string]bool{"varchar": true, "char": true, "text": true, "tinytext": true, "mediumtext": true, "longtext": true, "enum": true, "set": true, "varbinary": true, "binary": true}
	integerTypes = map[string]bool{"tinyint": true, "smallint": true, "mediumint": true, "int": true, "integer": true, "bigint": true}
)

// score rates column c for key k: 100 for a name that is the key's, less
// for words of the name or the type alone; 0 when it does not fit.
func score(k keySpec, c schemaddl.Column) (int, string) {
	if !fits(k, c) {
		return 0, ""
	}
	lower := strings.ToLower(c.Name)
	for i, n := range k.names {
		if lower == n {
			if i == 0 {
				return 100, "the contract's own name"
			}
			return 95, fmt.Sprintf("the name %s is a usual name for %s", c.Name, k.meaning)
		}
	}
	var hits []string
	for _, w := range nameWords(c.Name) {
		if slices.Contains(k.words, w) {
			hits = append(hits, w)
		}
	}
	switch {
	case len(hits) > 0:
		return min(90, 50+10*len(hits)), fmt.Sprintf("its name has %q, which reads as %s", strings.Join(hits, ", "), k.meaning)
	case k.kind == kindSerial:
		return 80, "the table's AUTO_INCREMENT column"
	case k.kind == kindPayload && isJSON(c):
		return 70, "the table's JSON column"
	}
	return 0, ""
}

// isJSON: a JSON column, or MariaDB's spelling of one (LONGTEXT with a
// json_valid CHECK).
func isJSON(c schemaddl.Column) bool {
	if c.Type == "json" {
		return true
	}
	for _, ch := range c.Checks {
		if strings.Contains(strings.ToLower(ch), "json_valid") {
			return true
		}
	}
	return false
}

// assign gives each key the best-scoring free column: candidates are taken
// highest score first, so a column that is exactly one key's name is never
// taken by a weaker guess for another key. bonus adds to a key's score for
// a column (the outbox's link to the jobs table).
func assign(t schemaddl.Table, keys []keySpec, bonus func(key string, c schemaddl.Column) (int, string)) tableGuess {
	var cands []pick
	for ki, k := range keys {
		for _, name := range t.Order {
			c := t.Columns[strings.ToLower(name)]
			s, why := score(k, c)
			if b, bwhy := bonus(k.key, c); b > 0 && fits(k, c) {
				s, why = s+b, joinReasons(bwhy, why)
			}
			if s > 0 {
				cands = append(cands, pick{key: k.key, column: c.Name, reason: why, score: s*100 - ki})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	g := tableGuess{table: t, picks: map[string]pick{}}
	used := map[string]bool{}
	for _, p := range cands {
		if _, done := g.picks[p.key]; done || used[p.column] {
			continue
		}
		used[p.column] = true
		p.score /= 100
		g.picks[p.key] = p
		g.score += p.score
	}
	for _, k := range keys {
		if _, ok := g.picks[k.key]; !ok && k.required {
			g.missing = append(g.missing, k.key)
		}
	}
	return g
}

func joinReasons(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// tableNameBonus rewards a table named like its role.
func tableNameBonus(name string, words []string) (int, string) {
	for _, w := range nameWords(name) {
		if slices.Contains(words, w) {
			return 30, fmt.Sprintf("its name has %q", w)
		}
	}
	return 0, ""
}
