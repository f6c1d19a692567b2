package localtest

import (
	"os"
	"testing"
)

// LongEnv names the variable that turns on the long suite (`make
// test-long`): the end-to-end tests that repeat, on more seeds or more
// dispatchers, what `make test` already proves once.
const LongEnv = "OUTBOXCHAOS_LONG_TESTS"

// Long skips t unless the long suite runs ($OUTBOXCHAOS_LONG_TESTS=1, as
// `make test-long` sets it). why says what `make test` runs instead, so
// that the skip names the test that keeps the proof.
func Long(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(LongEnv) != "1" {
		t.Skipf("in make test-long (%s=1): %s", LongEnv, why)
	}
}
