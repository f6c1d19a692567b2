package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// JUnit XML, as CI systems read it: <testsuites> with one <testsuite> per
// scenario run and one <testcase> per invariant.
type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

// junitCounts are the attributes a suite and the whole document share.
type junitCounts struct {
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure"`
	Skipped   *junitSkipped `xml:"skipped"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// writeJUnit writes one testsuite per results, in order. Suites of the same
// scenario are told apart by their seed.
func writeJUnit(w io.Writer, all []verdict.Results) error {
	doc := junitSuites{Name: "outboxchaos"}
	names := suiteNames(all)
	var total float64
	for i, r := range all {
		s := junitSuiteFor(names[i], r)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
		total += r.Duration.D().Seconds()
		doc.Suites = append(doc.Suites, s)
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit.xml: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write junit.xml: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write junit.xml: %w", err)
	}
	return nil
}

func suiteNames(all []verdict.Results) []string {
	count := make(map[string]int)
	for _, r := range all {
		count[r.Run.Scenario]++
	}
	out := make([]string, len(all))
	for i, r := range all {
		out[i] = r.Run.Scenario
		if count[r.Run.Scenario] > 1 {
			out[i] += " (seed " + strconv.FormatInt(r.Run.Seed, 10) + ")"
		}
	}
	return out
}

func junitSuiteFor(name string, r verdict.Results) junitSuite {
	s := junitSuite{
		Name:        name,
		junitCounts: junitCounts{Time: seconds(r.Duration.D().Seconds())},
		Properties: []junitProperty{
			{"seed", strconv.FormatInt(r.Run.Seed, 10)},
			{"adapter", r.Run.Adapter},
			{"environment", r.Run.Environment},
			{"verdict", string(r.Verdict)},
			{"verdict_reason", r.VerdictReason},
			{"command", r.Run.Command},
		},
	}
	if !r.Run.Started.IsZero() {
		s.Timestamp = r.Run.Started.UTC().Format("2006-01-02T15:04:05")
	}
	for _, inv := range r.Invariants {
		c := junitCaseFor(r.Run.Scenario, inv)
		s.Tests++
		if c.Failure != nil {
			s.Failures++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// junitCaseFor: fail is a <failure> whose message is the first violation's
// summary and whose text is every violation with its steps; unknown, not
// exercised and waived are <skipped> with the reason.
func junitCaseFor(scenario string, r check.Result) junitCase {
	c := junitCase{Name: r.ID + " " + r.Name, Classname: "outboxchaos." + scenario, Time: "0"}
	switch {
	case r.Waived != "":
		c.Skipped = &junitSkipped{Message: "waived: " + r.Waived + " (verdict " + string(r.Verdict) + ")"}
	case r.Verdict == check.Pass:
	case r.Verdict == check.Fail:
		c.Failure = &junitFailure{Message: failureMessage(r), Type: r.ID, Text: failureText(r)}
	case r.Verdict == check.NotExercised:
		c.Skipped = &junitSkipped{Message: "not exercised: " + r.Reason}
	case r.Verdict == check.NotApplicable:
		c.Skipped = &junitSkipped{Message: r.Reason}
	default:
		c.Skipped = &junitSkipped{Message: "unknown: " + r.Reason}
	}
	return c
}

func failureMessage(r check.Result) string {
	if len(r.Violations) == 0 {
		return r.Reason
	}
	msg := r.Violations[0].Summary
	if n := len(r.Violations); n > 1 {
		msg += fmt.Sprintf(" (and %d more)", n-1)
	}
	return msg
}

func failureText(r check.Result) string {
	var b strings.Builder
	if r.Reason != "" {
		b.WriteString(r.Reason + "\n")
	}
	shown, omitted := capSlice(r.Violations, maxViolationsShow)
	for i, v := range shown {
		fmt.Fprintf(&b, "\nviolation %d: %s\n", i+1, v.Summary)
		steps, more := capSlice(v.Steps, maxSteps)
		for j, s := range steps {
			fmt.Fprintf(&b, "  %d. %s [%s] %s\n", j+1, stamp(s.At), s.Source, s.Text)
		}
		if more > 0 {
			fmt.Fprintf(&b, "  ... %d more steps in results.json\n", more)
		}
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "\n... %d more violations in results.json\n", omitted)
	}
	return b.String()
}

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
