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
	kindKey    // an AUTO_INCREMENT integer, or a uuid (CHAR(36), BINARY(16), UUID)
	kindStatus // a status word (text) or an integer status code
	kindRef    // a text or binary column holding an id (a message id)
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
// Outbox and Jobs; adapters/manifest schemaspec.go) in the manifest's order,
// for an outbox beside a jobs table; soloKeys adjusts them for an outbox
// alone.
var outboxKeys = []keySpec{
	{"id", true, kindKey, "the event's id (an AUTO_INCREMENT integer, or a uuid the producer writes)", []string{"id", "event_id", "message_id", "outbox_id", "uuid"}, nil},
	{"event_type", true, kindText, "the event's type (ai.job.enqueue)", []string{"event_type", "type", "kind", "event_name", "message_type", "event", "topic"}, []string{"type", "kind", "event", "topic"}},
	{"aggregate_id", true, kindText, "the id of the job row the event is about", []string{"aggregate_id", "aggregate", "entity_id", "subject_id", "job_id", "task_id"}, []string{"aggregate", "job", "task", "entity", "subject", "ref"}},
	{"payload", true, kindPayload, `the event's JSON payload ({"jobId": ...})`, []string{"payload", "body", "data", "envelope", "message", "content", "args"}, []string{"payload", "body", "data", "envelope", "message", "content", "json"}},
	{"status", false, kindStatus, "the event's status word or code", []string{"status", "state"}, []string{"status", "state"}},
	{"attempts", false, kindInt, "how many attempts failed", []string{"attempts", "attempt", "attempt_count", "started_attempts", "retries", "retry_count", "tries", "try_count", "failures", "failure_count"}, []string{"attempt", "attempts", "retries", "retry", "tries", "failures"}},
	{"available_at", false, kindTime, "when the event may be claimed next (backoff)", []string{"available_at", "next_attempt_at", "next_retry_at", "retry_at", "run_at", "scheduled_at", "not_before", "visible_at", "due_at", "process_after"}, []string{"available", "next", "retry", "scheduled", "before", "visible", "due", "after"}},
	{"locked_by", false, kindText, "the instance holding the claim", []string{"locked_by", "lock_owner", "owner", "worker_id", "worker", "claimed_by", "instance_id", "node_id", "leased_by", "lease_owner"}, []string{"locked", "lock", "owner", "worker", "claimed", "instance", "node", "leased"}},
	{"lock_token", false, kindText, "the fencing token of the current claim", []string{"lock_token", "token", "claim_token", "lease_token", "fence", "fencing_token"}, []string{"token", "fence", "fencing"}},
	{"locked_until", false, kindTime, "when the claim's lease ends", []string{"locked_until", "lock_until", "lease_until", "lease_expires_at", "lock_expires_at", "claimed_until", "lease_end", "visible_until"}, []string{"until", "expires", "expiry", "lease", "lock", "locked", "claimed"}},
	{"last_error", false, kindText, "the last failure's reason", []string{"last_error", "error", "error_message", "error_text", "failure_reason", "last_failure", "reason"}, []string{"error", "failure", "reason"}},
	{"published_at", false, kindTime, "when the event was published", []string{"published_at", "delivered_at", "sent_at", "dispatched_at", "processed_at", "done_at", "completed_at"}, []string{"published", "delivered", "sent", "dispatched", "processed", "done", "completed"}},
	{"created_at", false, kindTime, "when the event was written", []string{"created_at", "created", "inserted_at", "enqueued_at", "occurred_at"}, []string{"created", "inserted", "enqueued", "occurred"}},
}

// soloExtra are the keys an outbox without a jobs table adds: the sink's
// message id when it is not the row's id, and the queue, stream or list.
var soloExtra = []keySpec{
	{"message_id", false, kindRef, "the id the sink's message carries, when it is not the row's id", []string{"message_id", "msg_id", "message_uuid", "event_uuid", "uuid", "external_id", "idempotency_key"}, []string{"uuid", "idempotency", "dedupe", "dedup"}},
	{"topic", false, kindText, "the queue, stream or list the message goes to", []string{"topic", "queue", "queue_name", "stream", "channel", "destination", "routing_key"}, []string{"topic", "queue", "stream", "channel", "destination", "routing"}},
}

var jobsKeys = []keySpec{
	{"id", true, kindText, "the job's id, also the BullMQ jobId", []string{"id", "job_id", "task_id"}, nil},
	{"queue", true, kindText, "the BullMQ queue the job goes to", []string{"queue_name", "queue", "queue_id", "channel", "topic", "lane"}, []string{"queue", "channel", "topic", "lane"}},
	{"status", true, kindStatus, "the job's status word or code", []string{"status", "state"}, []string{"status", "state"}},
}

// contractKeys are the manifest's own keys, whose first name is the
// contract's.
var contractKeys = func() map[string]bool {
	out := map[string]bool{}
	for _, list := range [][]keySpec{outboxKeys, jobsKeys, soloExtra} {
		for _, k := range list {
			out[k.key] = true
		}
	}
	return out
}()

// soloKeys are the outbox keys without a jobs table: event_type and
// aggregate_id are optional, message_id and topic are added.
func soloKeys() []keySpec {
	out := make([]keySpec, 0, len(outboxKeys)+len(soloExtra))
	for _, k := range outboxKeys {
		if k.key == "event_type" || k.key == "aggregate_id" {
			k.required = false
		}
		out = append(out, k)
	}
	return append(out, soloExtra...)
}

// Table names that suggest a role.
var (
	outboxTableWords  = []string{"outbox", "event", "events", "message", "messages", "outgoing"}
	jobsTableWords    = []string{"job", "jobs", "task", "tasks", "work"}
	deadTableWords    = []string{"dead", "dlq", "deadletter", "graveyard", "poison", "quarantine", "failed", "failures", "rejected", "parking"}
	offsetsTableWords = []string{"offset", "offsets", "cursor", "cursors", "checkpoint", "checkpoints", "position", "positions", "watermark", "watermarks", "progress"}
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

// fits reports whether column c can hold key k.
func fits(k keySpec, c schemaddl.Column) bool {
	switch k.kind {
	case kindText:
		return isText(c)
	case kindInt:
		return integerTypes[c.Type] && !c.AutoIncrement
	case kindTime:
		return c.Type == "datetime" || c.Type == "timestamp"
	case kindPayload:
		return c.Type == "json" || c.Type == "jsonb" || (textTypes[c.Type] && c.Type != "enum" && c.Type != "set") || strings.HasSuffix(c.Type, "blob")
	case kindKey:
		return (integerTypes[c.Type] && c.AutoIncrement) || isUUID(c)
	case kindStatus:
		return isText(c) || (integerTypes[c.Type] && !c.AutoIncrement)
	case kindRef:
		return isText(c) || c.Type == "uuid"
	}
	return true
}

// isText: a string column, or a column of an ENUM type.
func isText(c schemaddl.Column) bool { return textTypes[c.Type] || len(c.Values) > 0 }

// isUUID: a column that holds a uuid the producer writes: UUID,
// BINARY(16) or CHAR(36) (the manifest's key kinds).
func isUUID(c schemaddl.Column) bool {
	switch c.Type {
	case "uuid":
		return true
	case "binary", "varbinary":
		return c.TypeArgs == "16"
	case "char", "varchar":
		return c.TypeArgs == "36"
	}
	return false
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
			if i == 0 && contractKeys[k.key] {
				return 100, "the contract's own name"
			}
			if i == 0 {
				return 100, fmt.Sprintf("the name %s is the usual name for %s", c.Name, k.meaning)
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
	case k.kind == kindKey && c.AutoIncrement:
		return 80, "the table's AUTO_INCREMENT column"
	case k.kind == kindPayload && isJSON(c):
		return 70, "the table's JSON column"
	}
	return 0, ""
}

// isJSON: a JSON column, or MariaDB's spelling of one (LONGTEXT with a
// json_valid CHECK).
func isJSON(c schemaddl.Column) bool {
	if c.Type == "json" || c.Type == "jsonb" {
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
// a column (the outbox's link to the jobs table, a primary key), or rules
// the column out for the key when negative.
func assign(t schemaddl.Table, keys []keySpec, bonus func(key string, c schemaddl.Column) (int, string)) tableGuess {
	var cands []pick
	for ki, k := range keys {
		for _, name := range t.Order {
			c := t.Columns[strings.ToLower(name)]
			s, why := score(k, c)
			b, bwhy := bonus(k.key, c)
			switch {
			case b < 0:
				continue // the bonus rules the column out for this key
			case b > 0 && fits(k, c):
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
