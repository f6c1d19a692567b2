//go:build !race

package chaostest_test

const raceEnabled = false
