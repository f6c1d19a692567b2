//go:build race

package chaostest_test

// raceEnabled: the user module's end-to-end run is left to the plain pass
// (it builds its own test binary without -race anyway).
const raceEnabled = true
