package declare

import (
	"fmt"
	"path"
	"regexp"
)

// Clock is a proposed capabilities.clock: the mechanism and why, its
// reason starting with GUESS (read from the commands) or EDIT (nothing
// could be read).
type Clock struct {
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// libcRuntimes read the wall clock through libc, so libfaketime skews them.
var libcRuntimes = regexp.MustCompile(`^(node|nodejs|npm|npx|yarn|pnpm|python[0-9.]*|java)$`)

// GuessClock proposes how the harness may skew the dispatcher's clock from
// its start and build command lines (command first, then its arguments;
// either may be empty): a build step that runs go build means go-overlay;
// a start command that is Node.js, Python or Java means faketime; anything
// else is none, to edit.
func GuessClock(start, build []string) Clock {
	if len(build) > 1 && path.Base(build[0]) == "go" && build[1] == "build" {
		return Clock{"go-overlay", "GUESS: the build step runs go build, so the harness can compile the dispatcher with its time.Now overlay"}
	}
	if len(start) == 0 {
		return Clock{"none", "EDIT: faketime for a program that reads the time through libc (Node.js, Python, the JVM), go-overlay for a Go program the build step compiles with go build"}
	}
	base := path.Base(start[0])
	switch {
	case libcRuntimes.MatchString(base):
		return Clock{"faketime", fmt.Sprintf("GUESS: %s reads the time through libc, so libfaketime can skew it", base)}
	case base == "go" && len(start) > 1 && start[1] == "run":
		return Clock{"none", "EDIT: go run compiles outside the harness's build step: build it with go build under build: to use go-overlay"}
	}
	return Clock{"none", "EDIT: faketime for a program that reads the time through libc (Node.js, Python, the JVM), go-overlay for a Go program the build step compiles with go build"}
}
