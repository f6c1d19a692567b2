package manifest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/supervisor"

	"github.com/outboxchaos/outboxchaos/harness/spelling"
)

// Harness variables a template may name besides the contract's.
const (
	VarWorkDir     = "WORK_DIR"     // the run's work directory (absolute), given to Prepare
	VarManifestDir = "MANIFEST_DIR" // the directory holding the manifest (absolute)
)

// ContractVariables lists every contract variable an instance may receive
// (docs/contract.md §3, plus the crash-point variables).
func ContractVariables() []string {
	out := []string{
		"OUTBOX_MYSQL_DSN", "OUTBOX_MYSQL_URL", "OUTBOX_POSTGRES_URL", "OUTBOX_POSTGRES_DSN", "OUTBOX_REDIS_URL", "OUTBOX_QUEUES",
		supervisor.EnvInstanceID, "OUTBOX_BULL_PREFIX", supervisor.EnvRedisReplicas,
	}
	out = append(out, supervisor.TuningVariables()...)
	return append(out, supervisor.EnvFailpoints, supervisor.EnvFailpointSeed)
}

// text is a parsed template: literal text with ${NAME} references. "$$" is a
// literal "$"; any other "$" is an error.
type text struct {
	parts []textPart
}

type textPart struct {
	literal string
	ref     string // a variable name; literal is empty
}

// parseText parses s. Names are what a shell allows: a letter or '_', then
// letters, digits and '_'.
func parseText(s string) (text, error) {
	var t text
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			lit.WriteByte(s[i])
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '$':
			lit.WriteByte('$')
			i++
		case i+1 < len(s) && s[i+1] == '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return text{}, fmt.Errorf("unclosed ${ in %q", s)
			}
			name := s[i+2 : i+2+end]
			if !validEnvName(name) {
				return text{}, fmt.Errorf("${%s} in %q is not a variable name", name, s)
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, textPart{literal: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, textPart{ref: name})
			i += end + 2
		default:
			return text{}, fmt.Errorf("lone $ in %q: write ${NAME} for a variable or $$ for a literal $", s)
		}
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, textPart{literal: lit.String()})
	}
	return t, nil
}

// refs lists the variables t names, in order, with repeats.
func (t text) refs() []string {
	var out []string
	for _, p := range t.parts {
		if p.ref != "" {
			out = append(out, p.ref)
		}
	}
	return out
}

// expand substitutes every reference; a variable vars lacks is empty.
// String is the text with "${NAME}" for each variable (an escaped "$$"
// reads as the "$" it stands for).
func (t text) String() string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.ref != "" {
			b.WriteString("${" + p.ref + "}")
		} else {
			b.WriteString(p.literal)
		}
	}
	return b.String()
}

func (t text) expand(vars map[string]string) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.ref != "" {
			b.WriteString(vars[p.ref])
		} else {
			b.WriteString(p.literal)
		}
	}
	return b.String()
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// scope is the set of variables a template may name at one place.
type scope struct {
	names map[string]bool
	why   string // said when a contract variable is named where it is not known
}

func buildScope() scope {
	return scope{names: map[string]bool{VarWorkDir: true, VarManifestDir: true},
		why: "the contract variables exist only when an instance starts, not at build time"}
}

func startScope() scope {
	s := scope{names: map[string]bool{VarWorkDir: true, VarManifestDir: true}}
	for _, v := range ContractVariables() {
		s.names[v] = true
	}
	return s
}

func (s scope) sorted() []string {
	out := make([]string, 0, len(s.names))
	for n := range s.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// checkText parses the template at field and reports a syntax error or any
// variable outside sc. It returns the parsed template.
func checkText(ps *problems, sc scope, field, s string) text {
	t, err := parseText(s)
	if err != nil {
		ps.add(field, "use ${NAME} for a variable and $$ for a literal $", "%v", err)
		return text{}
	}
	contract := startScope()
	for _, ref := range t.refs() {
		if sc.names[ref] {
			continue
		}
		if contract.names[ref] && sc.why != "" {
			ps.add(field, "move it to start.args or start.env", "${%s}: %s", ref, sc.why)
			continue
		}
		fix := "use one of " + strings.Join(sc.sorted(), ", ")
		if c := spelling.Likely(ref, sc.sorted()); c != "" {
			fix = fmt.Sprintf("did you mean ${%s}? Known: %s", c, strings.Join(sc.sorted(), ", "))
		}
		ps.add(field, fix, "unknown variable ${%s}", ref)
	}
	return t
}
