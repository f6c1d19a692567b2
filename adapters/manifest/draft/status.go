package draft

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// statusRole is one status map of the manifest: its canonical words, the
// ones it must reach, and the words that usually mean each.
type statusRole struct {
	field     string // outbox_status, job_status
	canonical []string
	required  []string
	synonyms  map[string][]string
}

var (
	outboxRole = statusRole{
		field:     "outbox_status",
		canonical: []string{history.StatusPending, history.StatusProcessing, history.StatusPublished, history.StatusFailed},
		required:  []string{history.StatusPending, history.StatusProcessing, history.StatusPublished, history.StatusFailed},
		synonyms: map[string][]string{
			history.StatusPending:    {"pending", "new", "ready", "waiting", "queued", "retry", "retryable", "retrying", "scheduled", "open", "todo", "unsent", "available", "created", "delayed"},
			history.StatusProcessing: {"processing", "sending", "delivering", "publishing", "dispatching", "in_progress", "inprogress", "inflight", "in_flight", "claimed", "locked", "leased", "running", "working", "busy"},
			history.StatusPublished:  {"published", "sent", "delivered", "dispatched", "done", "completed", "complete", "success", "succeeded", "processed", "acked", "ok", "finished"},
			history.StatusFailed:     {"failed", "dead", "error", "errored", "rejected", "poison", "dead_letter", "dlq", "abandoned", "discarded", "gave_up", "failure", "invalid"},
		},
	}
	jobsRole = statusRole{
		field:     "job_status",
		canonical: []string{history.JobCreated, history.JobQueued, history.JobRunning, history.JobSucceeded},
		required:  []string{history.JobCreated, history.JobQueued},
		synonyms: map[string][]string{
			history.JobCreated:   {"created", "new", "pending", "draft", "init", "initial", "waiting", "requested", "open"},
			history.JobQueued:    {"queued", "enqueued", "dispatched", "published", "sent", "submitted", "scheduled", "handed_over", "ready"},
			history.JobRunning:   {"running", "active", "working", "in_progress", "started", "processing", "busy"},
			history.JobSucceeded: {"succeeded", "done", "completed", "complete", "finished", "success", "ok"},
		},
	}
)

// statusSource is what is known of a status column's words.
type statusSource struct {
	vocab    schemaddl.Vocabulary // ENUM or CHECK: a closed list
	data     []string             // SELECT DISTINCT, when a database was read
	dataRead bool
	def      string // the column's string DEFAULT
}

// wordPick is one entry of a status map, with why.
type wordPick struct {
	word, canonical, reason string
	guess                   bool // no word of the dispatcher's: the contract's own word
}

// statusGuess is a proposed status map: its entries and the comments on
// what it could not map.
type statusGuess struct {
	picks []wordPick
	notes []string
}

// guessStatus maps each word the column is known to hold onto a canonical
// word, then covers each required canonical word no word reached: with
// the contract's own word when the vocabulary is open (a guess, said so),
// or not at all when the DDL closes it (the draft then fails validation
// and says which word is missing).
func guessStatus(role statusRole, src statusSource) statusGuess {
	var g statusGuess
	reached := map[string]bool{}
	for _, w := range src.words() {
		c, why := classifyWord(role, w)
		if c == "" {
			g.notes = append(g.notes, fmt.Sprintf("UNMAPPED: %q (%s) reads as none of %s; map it by hand if the dispatcher writes it", w, src.origin(w), strings.Join(role.canonical, ", ")))
			continue
		}
		reached[c] = true
		g.picks = append(g.picks, wordPick{word: w, canonical: c, reason: src.origin(w) + "; " + why})
	}
	for _, c := range role.canonical {
		if reached[c] {
			continue
		}
		switch {
		case !slices.Contains(role.required, c):
			g.notes = append(g.notes, fmt.Sprintf("no word reads as %s (optional: add <your word>: %s if the job's workers write one)", c, c))
		case len(src.vocab.Words) > 0:
			g.notes = append(g.notes, fmt.Sprintf("NOT FOUND: no word of %s reads as %s; add <your word>: %s", src.vocab.From, c, c))
		default:
			g.picks = append(g.picks, wordPick{word: c, canonical: c, guess: true,
				reason: fmt.Sprintf("GUESS: no word of yours reads as %s (%s); the contract's own word is written: replace it with the one your dispatcher writes", c, src.searched())})
		}
	}
	return g
}

// words lists the known words: the DDL's, then the data's, then the default.
func (s statusSource) words() []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, w := range s.vocab.Words {
		add(w)
	}
	for _, w := range s.data {
		add(w)
	}
	add(s.def)
	return out
}

// origin says where word w was found.
func (s statusSource) origin(w string) string {
	var where []string
	if slices.Contains(s.vocab.Words, w) {
		where = append(where, "in "+s.vocab.From)
	}
	if slices.Contains(s.data, w) {
		where = append(where, "in the data")
	}
	if w == s.def {
		where = append(where, "the column's DEFAULT")
	}
	return strings.Join(where, ", ")
}

// searched says where words were looked for, for a guess's comment.
func (s statusSource) searched() string {
	if s.dataRead {
		return "not in the data, no ENUM or CHECK"
	}
	return "no ENUM or CHECK, and no database was read: give --dsn to read the words from the data"
}

// classifyWord finds the canonical word w usually means: a known word, or
// one of its parts (dead_letter reads as dead).
func classifyWord(role statusRole, w string) (string, string) {
	norm := strings.Join(nameWords(w), "_")
	for _, c := range role.canonical {
		if slices.Contains(role.synonyms[c], norm) {
			if norm == c {
				return c, "the contract's own word"
			}
			return c, fmt.Sprintf("reads as %s", c)
		}
	}
	for _, part := range nameWords(w) {
		for _, c := range role.canonical {
			if slices.Contains(role.synonyms[c], part) {
				return c, fmt.Sprintf("its part %q reads as %s", part, c)
			}
		}
	}
	return "", ""
}

// guessCodes maps integer status codes onto the canonical words in the
// order such codes usually have (0 pending, 1 processing, 2 published, 3
// failed; 0 created, 1 queued, ...), the column's DEFAULT first. The codes
// are the CHECK's, the data's and the DEFAULT; with an open vocabulary
// they are completed up to the required words. Every entry is a guess.
func guessCodes(role statusRole, src statusSource) statusGuess {
	codes, bad := sortedCodes(src.words())
	if len(src.vocab.Words) == 0 {
		for next := 0; len(codes) < len(role.required); next++ {
			if !slices.Contains(codes, next) {
				codes = append(codes, next)
			}
		}
		slices.Sort(codes)
	}
	if d, err := strconv.Atoi(src.def); err == nil && slices.Contains(codes, d) {
		codes = append([]int{d}, slices.DeleteFunc(codes, func(c int) bool { return c == d })...)
	}
	g := statusGuess{notes: []string{"GUESS: integer codes, mapped in the order such codes usually have: check each against your code's constants"}}
	for _, w := range bad {
		g.notes = append(g.notes, fmt.Sprintf("UNMAPPED: %q (%s) is not an integer code; map it by hand", w, src.origin(w)))
	}
	for i, c := range codes {
		w := strconv.Itoa(c)
		if i >= len(role.canonical) {
			g.notes = append(g.notes, fmt.Sprintf("UNMAPPED: code %s (%s): more codes than %s; map it by hand", w, codeOrigin(src, w), strings.Join(role.canonical, ", ")))
			continue
		}
		g.picks = append(g.picks, wordPick{word: w, canonical: role.canonical[i], reason: fmt.Sprintf("code %s (%s) as %s", w, codeOrigin(src, w), role.canonical[i])})
	}
	for _, c := range role.required[min(len(codes), len(role.required)):] {
		g.notes = append(g.notes, fmt.Sprintf("NOT FOUND: no code of %s left for %s; add <your code>: %s", src.vocab.From, c, c))
	}
	return g
}

// sortedCodes splits words into integer codes, ascending, and the rest.
func sortedCodes(words []string) ([]int, []string) {
	var codes []int
	var bad []string
	for _, w := range words {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		switch {
		case err != nil:
			bad = append(bad, w)
		case !slices.Contains(codes, n):
			codes = append(codes, n)
		}
	}
	slices.Sort(codes)
	return codes, bad
}

// codeOrigin says where code w was found, or that it is a placeholder.
func codeOrigin(src statusSource, w string) string {
	if o := src.origin(w); o != "" {
		return o
	}
	return "not seen: " + src.searched()
}
