package declare

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Sections a Suggestion adds to a manifest.
const (
	SectionConventions = "conventions"
	SectionClock       = "capabilities.clock"
)

// Suggestion is a manifest declaration that would settle what a run could
// not tell without it: the typed facts, and the YAML lines rendered from
// them (results.json's "declarations", the page and the CLI all show
// these).
type Suggestion struct {
	// Section is the manifest key it adds: SectionConventions or
	// SectionClock.
	Section string `json:"section"`
	// Settles names what is undecided for lack of it: invariant ids ("I4",
	// "I6") left unknown, or the scenario skipped ("clock-skew").
	Settles []string `json:"settles"`
	// Why is one line: what could not be told, and what the lines do.
	Why string `json:"why"`
	// Prefixes are the last_error prefixes seen on the returns to pending
	// the conventions would settle, most returns first (conventions only).
	Prefixes []SeenPrefix `json:"prefixes,omitempty"`
	// Kept counts those returns that left last_error as it was with no
	// prefix to name (empty, or starting with a number); a kept text with a
	// prefix counts under its prefix (SeenPrefix.Kept). Unnamed counts
	// those that changed it to a text no prefix names: declared conventions
	// judge those as retries.
	Kept    int     `json:"kept,omitempty"`
	KeptAt  []int64 `json:"kept_events,omitempty"`
	Unnamed int     `json:"unnamed,omitempty"`
	// Clock is the proposed mechanism (SectionClock only).
	Clock *Clock `json:"clock,omitempty"`
	// YAML is the lines to add to the manifest, rendered from the fields
	// above; they load with adapters/manifest as they are.
	YAML string `json:"yaml"`
}

// SeenPrefix is one last_error prefix seen on returns to pending.
type SeenPrefix struct {
	Prefix string `json:"prefix"`
	// Convention is what its words read as: Releases, Recoveries, or
	// Neither (""), which the YAML leaves commented out.
	Convention string `json:"convention,omitempty"`
	Word       string `json:"word,omitempty"` // the word that made it so
	Returns    int    `json:"returns"`
	// Kept counts those returns that left last_error as it was: the text
	// of an earlier write, which a release that keeps last_error shows.
	Kept int `json:"kept,omitempty"`
	// Events are the events of those returns, in id order (at most
	// maxEvents).
	Events []int64 `json:"events"`
}

// Return is one return to pending a declaration would settle: its event,
// and last_error after and before it.
type Return struct {
	Event                   int64
	LastError, OldLastError string
}

// maxEvents caps the events a SeenPrefix lists; shownEvents those a YAML
// comment names.
const (
	maxEvents   = 20
	shownEvents = 5
)

// Conventions builds the conventions suggestion for returns the history
// could not tell apart, settles naming what is unknown for lack of it.
func Conventions(settles []string, returns []Return) Suggestion {
	s := Suggestion{Section: SectionConventions, Settles: settles}
	byPrefix := map[string]*SeenPrefix{}
	for _, r := range returns {
		p := ErrorPrefix(r.LastError)
		kept := r.LastError == r.OldLastError
		switch {
		case strings.TrimSpace(p) == "" && kept:
			s.Kept++
			s.KeptAt = addEvent(s.KeptAt, r.Event)
		case strings.TrimSpace(p) == "":
			s.Unnamed++
		default:
			sp := byPrefix[p]
			if sp == nil {
				conv, word := ReadPrefix(p)
				sp = &SeenPrefix{Prefix: p, Convention: conv, Word: word}
				byPrefix[p] = sp
			}
			sp.Returns++
			sp.Events = addEvent(sp.Events, r.Event)
			if kept {
				sp.Kept++
			}
		}
	}
	for _, sp := range byPrefix {
		s.Prefixes = append(s.Prefixes, *sp)
	}
	sort.Slice(s.Prefixes, func(i, k int) bool {
		a, b := s.Prefixes[i], s.Prefixes[k]
		if a.Returns != b.Returns {
			return a.Returns > b.Returns
		}
		return a.Prefix < b.Prefix
	})
	s.Why = fmt.Sprintf("%s to pending before the lease ended, with no backoff, could be a release or a retry without backoff, and the adapter declares no conventions to tell them apart: %s unknown for it",
		plural(len(returns), "return", "returns"), strings.Join(settles, ", "))
	s.YAML = s.conventionsYAML()
	return s
}

// addEvent adds id to a sorted list of at most maxEvents, once.
func addEvent(list []int64, id int64) []int64 {
	i := sort.Search(len(list), func(i int) bool { return list[i] >= id })
	if (i < len(list) && list[i] == id) || i >= maxEvents {
		return list
	}
	list = append(list, 0)
	copy(list[i+1:], list[i:])
	list[i] = id
	if len(list) > maxEvents {
		list = list[:maxEvents]
	}
	return list
}

// conventionsYAML renders the conventions block: prefixes read as a
// release or a recovery live under their key, keeps_last_error when returns
// kept it, and the rest as comments.
func (s Suggestion) conventionsYAML() string {
	var live, others []SeenPrefix
	for _, p := range s.Prefixes {
		if p.Convention == Neither {
			others = append(others, p)
		} else {
			live = append(live, p)
		}
	}
	var b strings.Builder
	if len(live) == 0 && s.Kept == 0 {
		b.WriteString("# No last_error seen on these returns reads as a release or a recovery by its words.\n")
		b.WriteString("# Declare under conventions.releases.last_error_prefixes only what the dispatcher\n")
		b.WriteString("# writes when it gives back a claim it has not started.\n")
	} else {
		b.WriteString("conventions:\n")
		for _, key := range []string{Releases, Recoveries} {
			s.renderSection(&b, key, live)
		}
	}
	for _, p := range others {
		fmt.Fprintf(&b, "# not declared: %s, seen on %s: its words read as neither a release nor a recovery\n", quote(p.Prefix), s.seen(p.Returns, p.Events))
		if p.Kept > 0 {
			fmt.Fprintf(&b, "#   (%d of them left last_error as an earlier write had it: if the dispatcher's releases keep last_error,\n", p.Kept)
			b.WriteString("#   declare keeps_last_error: true under releases; a retry that writes the same error again then reads as one too)\n")
		}
	}
	if len(others) > 0 {
		b.WriteString("#   (declare one under releases only if the dispatcher writes it when it gives back a claim it has not\n")
		b.WriteString("#   started; left out, the conventions judge those returns as retries without backoff: I6)\n")
	}
	if s.Unnamed > 0 {
		fmt.Fprintf(&b, "# %s emptied last_error or wrote one starting with a number: no prefix names them, and the conventions judge them as retries without backoff\n",
			plural(s.Unnamed, "return", "returns"))
	}
	return b.String()
}

// renderSection writes one key (releases or recoveries) when it declares
// something: its prefixes, and keeps_last_error under releases.
func (s Suggestion) renderSection(b *strings.Builder, key string, live []SeenPrefix) {
	var mine []SeenPrefix
	for _, p := range live {
		if p.Convention == key {
			mine = append(mine, p)
		}
	}
	keeps := key == Releases && s.Kept > 0
	if len(mine) == 0 && !keeps {
		return
	}
	fmt.Fprintf(b, "  %s:\n", key)
	if len(mine) > 0 {
		b.WriteString("    last_error_prefixes:\n")
		for _, p := range mine {
			fmt.Fprintf(b, "      - %s  # GUESS: %s by its words (%q); seen on %s\n", quote(p.Prefix), article(key), p.Word, s.seen(p.Returns, p.Events))
		}
	}
	if keeps {
		fmt.Fprintf(b, "    keeps_last_error: true  # GUESS: %s left last_error as it was, with nothing a prefix names\n", s.seen(s.Kept, s.KeptAt))
	}
}

// seen says "3 returns (events 4, 9, 12)", naming at most shownEvents.
func (s Suggestion) seen(n int, events []int64) string {
	var ids []string
	for i, e := range events {
		if i == shownEvents {
			ids = append(ids, "...")
			break
		}
		ids = append(ids, fmt.Sprint(e))
	}
	word := "events"
	if len(events) == 1 {
		word = "event"
	}
	return fmt.Sprintf("%s (%s %s)", plural(n, "return", "returns"), word, strings.Join(ids, ", "))
}

func article(key string) string {
	if key == Recoveries {
		return "a recovery"
	}
	return "a release"
}

// ClockSuggestion builds the capabilities.clock suggestion for a scenario
// skipped because the adapter declares no clock, from its start and build
// command lines (GuessClock).
func ClockSuggestion(scenario string, start, build []string) Suggestion {
	c := GuessClock(start, build)
	s := Suggestion{Section: SectionClock, Settles: []string{scenario}, Clock: &c}
	s.Why = fmt.Sprintf("%s is skipped: the adapter declares no way to skew its clock; the line below is read from its start and build commands", scenario)
	s.YAML = fmt.Sprintf("capabilities:  # merge into the manifest's capabilities: section if it has one\n  clock: %s  # %s\n", c.Value, c.Reason)
	return s
}

// quote writes s as a YAML double-quoted scalar (JSON's string syntax is
// YAML's).
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
