package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// rawManifest is the file as written; doc.go documents every key.
type rawManifest struct {
	Name         string                  `yaml:"name"`
	Build        *rawCommand             `yaml:"build"`
	Start        *rawStart               `yaml:"start"`
	Schema       yaml.Node               `yaml:"schema"`
	Sink         rawSink                 `yaml:"sink"`
	Capabilities supervisor.Capabilities `yaml:"capabilities"`
	Conventions  rawConventions          `yaml:"conventions"`
	Delivery     string                  `yaml:"delivery"`
	Store        string                  `yaml:"store"`
	Producer     *rawProducer            `yaml:"producer"`
}

type rawCommand struct {
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
	Dir     string   `yaml:"dir"`
}

type rawStart struct {
	Command         string            `yaml:"command"`
	Args            []string          `yaml:"args"`
	Dir             string            `yaml:"dir"`
	Env             map[string]string `yaml:"env"`
	PassContractEnv *bool             `yaml:"pass_contract_env"`
}

type rawSink struct {
	Kind      string   `yaml:"kind"`
	Prefix    string   `yaml:"prefix"`
	Queues    []string `yaml:"queues"`
	MessageID string   `yaml:"message_id"`
	Payload   string   `yaml:"payload"`
	Push      string   `yaml:"push"`
}

// rawProducer is the team's own write path (producer.go).
type rawProducer struct {
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Dir     string            `yaml:"dir"`
	Env     map[string]string `yaml:"env"`
}

// Load reads and validates the manifest at path. Every check that needs no
// server runs here: unknown keys, missing files and directories, programs
// not on PATH, template variables, the schema mapping against the DDL's
// columns, the status words, the capability names. All problems are
// reported together as an *Error, each with the file, line, field and fix.
func Load(path string) (*Adapter, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w (fix: give the path of a manifest file)", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	raw, ps, err := decode(path, data)
	if err != nil {
		return nil, err
	}
	l := &loader{ps: ps, dir: filepath.Dir(abs), raw: raw}
	a := l.adapter()
	a.path = abs
	if err := ps.err(); err != nil {
		return nil, err
	}
	return a, nil
}

// decode parses the document, reports unknown keys and type errors, and
// decodes what it can. A document that is not YAML, not a mapping, or has
// values of the wrong type is returned as an error at once.
func decode(path string, data []byte) (*rawManifest, *problems, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, fmt.Errorf("manifest %s: not valid YAML: %w (fix: correct the syntax at that line)", path, err)
	}
	ps := &problems{file: path, pos: newPositions(&root)}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		ps.add("", "start from the example in the package documentation of adapters/manifest", "the file is empty or not a mapping of keys")
		return nil, nil, ps.err()
	}
	checkKeys(ps, root.Content[0], reflect.TypeOf(rawManifest{}), "")
	var raw rawManifest
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(&raw)
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te):
		typeProblems(ps, te)
	case err != nil:
		return nil, nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	if len(ps.list) > 0 && hasTypeProblem(ps) {
		return nil, nil, ps.err()
	}
	return &raw, ps, nil
}

var typeErrLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// typeProblems turns the decoder's messages into Problems; unknown keys are
// already reported by checkKeys with a better message.
func typeProblems(ps *problems, te *yaml.TypeError) {
	for _, msg := range te.Errors {
		if strings.Contains(msg, "not found in type") {
			continue
		}
		line := 0
		if m := typeErrLine.FindStringSubmatch(msg); m != nil {
			fmt.Sscan(m[1], &line)
			msg = m[2]
		}
		ps.list = append(ps.list, Problem{File: ps.file, Line: line, Field: ps.pos.fieldAt(line),
			What: "wrong type: " + msg, Fix: "write the value as the format documents (a string, a list of strings, a mapping or true/false)"})
	}
}

func hasTypeProblem(ps *problems) bool {
	for _, p := range ps.list {
		if strings.HasPrefix(p.What, "wrong type") {
			return true
		}
	}
	return false
}

// fieldAt returns the outermost field on line: the key whose value has the
// wrong type, not something inside that value.
func (p *positions) fieldAt(line int) string {
	best := ""
	for path, l := range p.lines {
		if l == line && (best == "" || len(path) < len(best) || (len(path) == len(best) && path < best)) {
			best = path
		}
	}
	return best
}

// loader validates a decoded manifest and builds its Adapter.
type loader struct {
	ps  *problems
	dir string // the manifest's directory, absolute
	raw *rawManifest
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func (l *loader) adapter() *Adapter {
	r := l.raw
	a := &Adapter{dir: l.dir, name: r.Name}
	if !namePattern.MatchString(r.Name) {
		l.ps.add("name", "name the dispatcher with letters, digits, '.', '_' or '-' (at most 64), like node-dispatcher",
			"%s", describeBad("name", r.Name))
	}
	if r.Build != nil {
		a.build = l.buildCommand(r.Build)
	}
	if r.Start == nil {
		l.ps.add("start", "add start: with at least command:", "start is missing: the harness cannot run the dispatcher")
	} else {
		l.start(a, r.Start, r.Build != nil)
	}
	a.mapping = l.schema(&r.Schema)
	a.prefix, a.queues = l.sink(r.Sink)
	a.sink = l.sinkShape(r.Sink)
	a.delivery = l.delivery(r.Delivery)
	a.store = l.storeName(r.Store)
	if r.Producer != nil {
		a.producer = l.producer(r.Producer, r.Build != nil)
	}
	a.caps = l.capabilities(r.Capabilities, a)
	a.conv = l.conventions(r.Conventions)
	return a
}

func describeBad(field, v string) string {
	if v == "" {
		return field + " is missing"
	}
	return fmt.Sprintf("%s %q is not allowed", field, v)
}
