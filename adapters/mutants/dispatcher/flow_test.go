package dispatcher

import (
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEachBugChangesOneField proves the catalog's promise structurally: every
// bug's flow differs from the base's in exactly one field.
func TestEachBugChangesOneField(t *testing.T) {
	base := baseFlow()
	require.Len(t, Bugs(), 27)
	for _, name := range Bugs() {
		f, err := flowFor(name, "")
		require.NoError(t, err)
		require.Equal(t, 1, changedFields(base, f), "bug %s must change exactly one field of the base flow", name)
	}
	seen := map[flow]string{}
	for _, name := range Bugs() {
		f, _ := flowFor(name, "")
		require.Empty(t, seen[f], "bugs %s and %s are the same flow", seen[f], name)
		seen[f] = name
	}
}

func TestModesKeepEveryGuard(t *testing.T) {
	for _, name := range Modes() {
		f, err := flowFor("", name)
		require.NoError(t, err)
		require.Equal(t, exclusionRowLeases, f.exclusion, name)
		require.Equal(t, recoveryGuarded, f.recovery, name)
		require.Equal(t, addProducer, f.add, name)
		require.True(t, f.addFirst && f.fenced && f.queueJobs && f.backoff && f.failAtMax && f.poisonFails, name)
		require.Positive(t, f.pollInterval, name)
		require.Positive(t, f.batchSize, name)
	}
}

func changedFields(a, b flow) int {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	n := 0
	for i := 0; i < va.NumField(); i++ {
		if !va.Field(i).Equal(vb.Field(i)) {
			n++
		}
	}
	return n
}

func TestUnknownNamesSayWhatIsValid(t *testing.T) {
	_, err := flowFor("no-such-bug", "")
	require.ErrorContains(t, err, `OUTBOXCHAOS_MUTANT="no-such-bug": unknown mutant; use one of select-then-update, no-jobid,`)
	require.ErrorContains(t, err, "global-lock")
	require.NotContains(t, err.Error(), "\n")
	_, err = flowFor("", "fast")
	require.ErrorContains(t, err, "unknown mode; use one of nest-single, global-lock-batch20")
	_, err = flowFor(names.BugNoBackoff, names.ModeNestSingle)
	require.ErrorContains(t, err, "both set")
}

func TestConfigFromEnv(t *testing.T) {
	environ := []string{
		"OUTBOX_MYSQL_DSN=root@tcp(127.0.0.1:3306)/outbox", "OUTBOX_REDIS_URL=redis://127.0.0.1:6379/0",
		"OUTBOX_QUEUES=ai-default", "OUTBOX_INSTANCE_ID=d1", "OUTBOX_LEASE=2s", "OUTBOX_PUBLISH_TIMEOUT=1s",
		"OUTBOXCHAOS_MUTANT=no-backoff",
	}
	c, err := ConfigFromEnv(environ)
	require.NoError(t, err)
	require.Equal(t, names.BugNoBackoff, c.Bug)
	require.Equal(t, "d1", c.InstanceID)
	require.Equal(t, "no-backoff", c.Name())

	environ[len(environ)-1] = "OUTBOXCHAOS_MUTANT=bogus"
	_, err = ConfigFromEnv(environ)
	require.ErrorContains(t, err, "unknown mutant")

	environ[len(environ)-1] = "OUTBOXCHAOS_MODE=global-lock-batch20"
	c, err = ConfigFromEnv(environ)
	require.NoError(t, err)
	require.Equal(t, "global-lock-batch20", c.Name())

	_, err = ConfigFromEnv(append(environ, "OUTBOX_LEASE=soon"))
	require.ErrorContains(t, err, "OUTBOX_LEASE")
	_, err = ConfigFromEnv(environ[1:])
	require.True(t, strings.Contains(err.Error(), "OUTBOX_MYSQL_DSN"), err.Error())
}
