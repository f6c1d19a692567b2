package manifest

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one thing wrong with a manifest: where it is, what is wrong and
// how to fix it.
type Problem struct {
	File  string // the manifest's path as given to Load
	Line  int    // 1-based line of the field; 0 when the field is absent
	Field string // YAML path of the field: "start.command", "capabilities.tuning[1]"
	What  string // what is wrong
	Fix   string // what to do about it
}

// Error reads "m.yaml:12: start.command: program \"nodee\" not found on PATH
// (fix: ...)".
func (p Problem) Error() string {
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	field := ""
	if p.Field != "" {
		field = " " + p.Field + ":"
	}
	fix := ""
	if p.Fix != "" {
		fix = " (fix: " + p.Fix + ")"
	}
	return fmt.Sprintf("%s:%s %s%s", where, field, p.What, fix)
}

// Error is every problem Load found in one manifest, in line order.
type Error struct {
	File     string
	Problems []Problem
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return "manifest " + e.Problems[0].Error()
	}
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  " + p.Error()
	}
	return fmt.Sprintf("manifest %s: %d problems:\n%s", e.File, len(e.Problems), strings.Join(lines, "\n"))
}

// problems collects Problems with positions taken from the document.
type problems struct {
	file string
	pos  *positions
	list []Problem
}

// add records a problem at field (a YAML path); the line comes from the
// document, or from the nearest enclosing field present in it.
func (ps *problems) add(field, fix, format string, args ...any) {
	ps.list = append(ps.list, Problem{
		File: ps.file, Line: ps.pos.line(field), Field: field,
		What: fmt.Sprintf(format, args...), Fix: fix,
	})
}

// err returns nil or an *Error holding every problem in line order.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	// In line order; problems of absent fields (line 0) last.
	key := func(l int) int {
		if l == 0 {
			return int(^uint(0) >> 1)
		}
		return l
	}
	sort.SliceStable(ps.list, func(i, j int) bool { return key(ps.list[i].Line) < key(ps.list[j].Line) })
	return &Error{File: ps.file, Problems: ps.list}
}
