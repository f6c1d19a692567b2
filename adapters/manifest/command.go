package manifest

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// command is a program to run: the build step or the dispatcher itself.
type command struct {
	program text   // templated over WORK_DIR and MANIFEST_DIR
	args    []text // templated
	dir     string // absolute working directory
}

// envEntry is one variable start.env sets.
type envEntry struct {
	key   string
	value text
}

// commandScope is what a program path may name.
func commandScope() scope {
	return scope{names: map[string]bool{VarWorkDir: true, VarManifestDir: true},
		why: "a program path cannot depend on an instance's variables; pass them in args or env"}
}

func (l *loader) buildCommand(r *rawCommand) *command {
	c := &command{dir: l.directory("build.dir", r.Dir)}
	c.program = l.program("build.command", r.Command, c.dir, false)
	for i, arg := range r.Args {
		c.args = append(c.args, checkText(l.ps, buildScope(), fmt.Sprintf("build.args[%d]", i), arg))
	}
	return c
}

func (l *loader) start(a *Adapter, r *rawStart, hasBuild bool) {
	c := command{dir: l.directory("start.dir", r.Dir)}
	c.program = l.program("start.command", r.Command, c.dir, hasBuild)
	for i, arg := range r.Args {
		c.args = append(c.args, checkText(l.ps, startScope(), fmt.Sprintf("start.args[%d]", i), arg))
	}
	a.start = c
	a.passContract = r.PassContractEnv == nil || *r.PassContractEnv
	keys := slices.Sorted(maps.Keys(r.Env))
	for _, k := range keys {
		field := "start.env." + k
		if !validEnvName(k) {
			l.ps.add(field, "use letters, digits and '_', not starting with a digit", "%q is not an environment variable name", k)
			continue
		}
		a.env = append(a.env, envEntry{key: k, value: checkText(l.ps, startScope(), field, r.Env[k])})
	}
}

// directory resolves a dir field against the manifest's directory and checks
// that it exists.
func (l *loader) directory(field, dir string) string {
	if dir == "" {
		return l.dir
	}
	abs := dir
	if !filepath.IsAbs(dir) {
		abs = filepath.Join(l.dir, dir)
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		l.ps.add(field, "name an existing directory, relative to the manifest's directory "+l.dir, "directory %q not found (%s)", dir, abs)
	case !st.IsDir():
		l.ps.add(field, "name a directory, not a file", "%q is not a directory", dir)
	}
	return abs
}

// program checks a command field. A name without '/' must be on PATH; a path
// (relative to dir) must be an executable file, except that a path a build
// step may create (mayBeBuilt) is checked again after the build.
func (l *loader) program(field, raw, dir string, mayBeBuilt bool) text {
	if strings.TrimSpace(raw) == "" {
		l.ps.add(field, "name the program: a name found on PATH (node) or a path relative to the dir (./bin/dispatcher)", "command is missing")
		return text{}
	}
	t := checkText(l.ps, commandScope(), field, raw)
	usesWorkDir := false
	for _, r := range t.refs() {
		usesWorkDir = usesWorkDir || r == VarWorkDir
	}
	if usesWorkDir {
		if !mayBeBuilt {
			l.ps.add(field, "add a build step that writes the program there, or name an existing program",
				"%q names ${WORK_DIR}, a fresh directory only a build step fills", raw)
		}
		return t
	}
	expanded := t.expand(map[string]string{VarManifestDir: l.dir})
	if err := checkProgram(expanded, dir); err != nil {
		if mayBeBuilt && os.IsNotExist(err) && strings.Contains(expanded, "/") {
			return t // the build step may create it; Prepare checks again
		}
		l.ps.add(field, programFix(expanded), "%v", err)
	}
	return t
}

// checkProgram finds program: a bare name on PATH, a path relative to dir.
func checkProgram(program, dir string) error {
	if !strings.Contains(program, "/") {
		if _, err := exec.LookPath(program); err != nil {
			return fmt.Errorf("program %q not found on PATH", program)
		}
		return nil
	}
	p := program
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return &os.PathError{Op: "program", Path: p, Err: os.ErrNotExist}
	case st.IsDir():
		return fmt.Errorf("program %q is a directory", p)
	case st.Mode()&0o111 == 0:
		return fmt.Errorf("program %q is not executable", p)
	}
	return nil
}

func programFix(program string) string {
	if strings.Contains(program, "/") {
		return "build the program first, add a build step that creates it, or chmod +x it; relative paths are relative to the command's dir"
	}
	return fmt.Sprintf("install %s or put its directory on PATH, or give its path", program)
}

// words is the command line, variables unexpanded: the program, then its
// arguments.
func (c command) words() []string {
	out := []string{c.program.String()}
	for _, a := range c.args {
		out = append(out, a.String())
	}
	return out
}

// CommandLines are the start and build command lines, variables
// unexpanded (build nil when there is no build step): what a report reads to
// guess the clock a skipped clock-skew needs (declare.GuessClock).
func (a *Adapter) CommandLines() (start, build []string) {
	if a.build != nil {
		build = a.build.words()
	}
	return a.start.words(), build
}

// resolve expands a command's program for a run; a path becomes absolute.
func (c command) resolve(vars map[string]string) string {
	p := c.program.expand(vars)
	if strings.Contains(p, "/") && !filepath.IsAbs(p) {
		p = filepath.Join(c.dir, p)
	}
	return p
}

func (c command) expandArgs(vars map[string]string) []string {
	out := make([]string, len(c.args))
	for i, a := range c.args {
		out[i] = a.expand(vars)
	}
	return out
}
