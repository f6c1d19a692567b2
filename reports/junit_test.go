package reports

import (
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
)

func parseJUnit(t *testing.T, path string) junitSuites {
	t.Helper()
	var doc junitSuites
	require.NoError(t, xml.Unmarshal([]byte(readFile(t, path)), &doc), "junit.xml is valid XML")
	return doc
}

func TestJUnitFailSeveral(t *testing.T) {
	dir, _ := writeStored(t, "fail-several")
	_, checks := loadStored(t, "fail-several")
	doc := parseJUnit(t, filepath.Join(dir, FileJUnit))
	require.Len(t, doc.Suites, 1)
	s := doc.Suites[0]
	require.Equal(t, "random", s.Name)
	require.Len(t, s.Cases, len(checks), "one testcase per invariant")
	require.Equal(t, 9, s.Tests)
	require.Equal(t, 4, s.Failures)
	require.Equal(t, 2, s.Skipped) // I6 waived, I9 unknown
	require.Equal(t, 9, doc.Tests)
	for i, c := range s.Cases {
		r := checks[i]
		require.Equal(t, r.ID+" "+r.Name, c.Name)
		require.Equal(t, "outboxchaos.random", c.Classname)
		switch {
		case r.Waived != "":
			require.NotNil(t, c.Skipped, r.ID)
			require.Nil(t, c.Failure)
			require.Contains(t, c.Skipped.Message, "waived: "+r.Waived)
		case r.Verdict == check.Fail:
			require.NotNil(t, c.Failure, r.ID)
			require.Equal(t, r.Violations[0].Summary, c.Failure.Message)
			require.Equal(t, r.ID, c.Failure.Type)
			for _, st := range r.Violations[0].Steps {
				require.Contains(t, c.Failure.Text, st.Text)
			}
		case r.Verdict == check.Unknown:
			require.NotNil(t, c.Skipped, r.ID)
			require.Equal(t, "unknown: "+r.Reason, c.Skipped.Message)
		default:
			require.Nil(t, c.Failure, r.ID)
			require.Nil(t, c.Skipped, r.ID)
		}
	}
	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	require.Equal(t, "1337", props["seed"])
	require.Equal(t, "fail", props["verdict"])
	require.True(t, strings.HasPrefix(props["command"], "outboxchaos run --scenario random"))
}

func TestJUnitPassBaseline(t *testing.T) {
	dir, _ := writeStored(t, "pass-baseline")
	_, checks := loadStored(t, "pass-baseline")
	doc := parseJUnit(t, filepath.Join(dir, FileJUnit))
	require.Len(t, doc.Suites, 1)
	require.Len(t, doc.Suites[0].Cases, 9)
	require.Zero(t, doc.Failures)
	require.Equal(t, 4, doc.Skipped, "I4, I6, I7 and I8 had nothing to check")
	for i, c := range doc.Suites[0].Cases {
		require.Nil(t, c.Failure)
		if checks[i].Verdict == check.NotExercised {
			require.NotNil(t, c.Skipped, checks[i].ID)
			require.Equal(t, "not exercised: "+checks[i].Reason, c.Skipped.Message)
			continue
		}
		require.Nil(t, c.Skipped, checks[i].ID)
	}
}

func TestJUnitControlCharacters(t *testing.T) {
	run, checks := loadStored(t, "fail-several")
	checks[0].Violations[0].Summary = "bell \x07 escape \x1b[31m nul \x00 end"
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, checks))
	doc := parseJUnit(t, filepath.Join(dir, FileJUnit))
	require.Contains(t, doc.Suites[0].Cases[0].Failure.Message, "end")
}
