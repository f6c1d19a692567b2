package manifest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/outboxchaos/outboxchaos/harness/spelling"
)

// positions maps every YAML path of a document ("start.args[0]") to the line
// of its key (for mapping entries) or of its value (for list items).
type positions struct {
	lines map[string]int
}

func newPositions(root *yaml.Node) *positions {
	p := &positions{lines: map[string]int{}}
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		p.walk(root.Content[0], "")
	}
	return p
}

func (p *positions) walk(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := join(path, n.Content[i].Value)
			p.lines[k] = n.Content[i].Line
			p.walk(n.Content[i+1], k)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			k := fmt.Sprintf("%s[%d]", path, i)
			p.lines[k] = c.Line
			p.walk(c, k)
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			p.walk(n.Alias, path)
		}
	}
}

// line returns the line of path, or of its nearest ancestor in the document,
// or 0.
func (p *positions) line(path string) int {
	for path != "" {
		if l, ok := p.lines[path]; ok {
			return l
		}
		path = parent(path)
	}
	return 0
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func parent(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return ""
}

// nodeFields says which struct a yaml.Node field holds when it is a mapping.
var nodeFields = map[string]reflect.Type{"schema": reflect.TypeOf(rawSchema{})}

var yamlNodeType = reflect.TypeOf(yaml.Node{})

// checkKeys reports every mapping key of n that the Go type t does not
// declare, with the closest known key and the full list. Values of the wrong
// kind are left to the decoder.
func checkKeys(ps *problems, n *yaml.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch {
	case t == yamlNodeType:
		if inner, ok := nodeFields[path]; ok && n.Kind == yaml.MappingNode {
			checkKeys(ps, n, inner, path)
		}
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			ft, ok := fields[key]
			if !ok {
				ps.add(join(path, key), unknownKeyFix(key, fields), "unknown key %q", key)
				continue
			}
			checkKeys(ps, n.Content[i+1], ft, join(path, key))
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, c := range n.Content {
			checkKeys(ps, c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			checkKeys(ps, n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
		}
	}
}

// yamlFields maps the YAML keys of struct t to their field types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func unknownKeyFix(key string, fields map[string]reflect.Type) string {
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	sort.Strings(known)
	fix := "remove it or use one of " + strings.Join(known, ", ")
	if s := spelling.Likely(key, known); s != "" {
		fix = fmt.Sprintf("did you mean %q? Known keys here: %s", s, strings.Join(known, ", "))
	}
	return fix
}
