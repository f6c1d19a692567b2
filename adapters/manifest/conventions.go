package manifest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// rawConventions is the conventions key: what the dispatcher's returns to
// pending look like, for what the history alone cannot tell (doc.go).
type rawConventions struct {
	Releases   *rawGiveBack `yaml:"releases"`
	Recoveries *rawRecovery `yaml:"recoveries"`
}

// rawGiveBack is how a release marks last_error.
type rawGiveBack struct {
	Prefixes []string `yaml:"last_error_prefixes"`
	Keeps    bool     `yaml:"keeps_last_error"`
}

// rawRecovery is how a lease recovery marks last_error, and how soon after
// a lease runs out the dispatcher recovers the claim.
type rawRecovery struct {
	Prefixes []string `yaml:"last_error_prefixes"`
	Keeps    bool     `yaml:"keeps_last_error"`
	Bound    string   `yaml:"bound"`
}

// maxRecoveryBound is the longest recovery bound a manifest may declare: a
// longer one would let a claim stay stuck through a whole run.
const maxRecoveryBound = time.Hour

// maxLastError is the contract's width of outbox_events.last_error: a longer
// prefix can never match.
const maxLastError = 1024

// conventions checks the conventions key and returns what it declares.
func (l *loader) conventions(r rawConventions) history.Conventions {
	var c history.Conventions
	if r.Releases != nil {
		c.ReleaseErrors = l.prefixes("conventions.releases", r.Releases.Prefixes, r.Releases.Keeps)
		c.ReleaseKeepsError = r.Releases.Keeps
	}
	if r.Recoveries != nil {
		c.RecoveryErrors = l.prefixes("conventions.recoveries", r.Recoveries.Prefixes, r.Recoveries.Keeps)
		c.RecoveryKeepsError = r.Recoveries.Keeps
		c.RecoveryBound = l.bound("conventions.recoveries.bound", r.Recoveries.Bound)
	}
	return c
}

// prefixes checks one list of last_error prefixes; a section must say
// something about last_error.
func (l *loader) prefixes(section string, list []string, keeps bool) []string {
	if len(list) == 0 && !keeps {
		l.ps.add(section, "list last_error_prefixes, or set keeps_last_error: true, or remove the section",
			"%s says nothing about last_error", section)
		return nil
	}
	var out []string
	for i, p := range list {
		field := fmt.Sprintf("%s.last_error_prefixes[%d]", section, i)
		switch {
		case strings.TrimSpace(p) == "":
			l.ps.add(field, "write the text the dispatcher puts at the start of last_error, like \"released:\"",
				"an empty or blank prefix would match every last_error")
		case len(p) > maxLastError:
			l.ps.add(field, "shorten it: last_error holds at most 1024 characters",
				"prefix of %d characters can never match", len(p))
		case slices.Contains(out, p):
			l.ps.add(field, "list each prefix once", "prefix %q is listed twice", p)
		default:
			out = append(out, p)
		}
	}
	return out
}

// bound checks the declared recovery bound ("" when not declared).
func (l *loader) bound(field, s string) history.Duration {
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		l.ps.add(field, "write a Go duration, like 10s or 1m30s", "%q is not a duration", s)
	case d <= 0:
		l.ps.add(field, "write a positive duration, like 10s", "bound %s is not positive", s)
	case d > maxRecoveryBound:
		l.ps.add(field, "declare at most 1h", "bound %s is longer than %s: a claim could stay stuck through a whole run", s, maxRecoveryBound)
	default:
		return history.Duration(d)
	}
	return 0
}

// Conventions are what the manifest declares about the dispatcher's
// releases and recoveries (the zero value when it declares nothing). The
// runner copies them into history.Meta, so a stored run re-checks the same.
func (a *Adapter) Conventions() history.Conventions {
	c := a.conv
	c.ReleaseErrors = slices.Clone(c.ReleaseErrors)
	c.RecoveryErrors = slices.Clone(c.RecoveryErrors)
	return c
}
