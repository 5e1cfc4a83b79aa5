//go:build race

package stdiogate_test

// raceEnabled: under the race detector the gate processes the tests start
// (this test binary) run several times slower, so the tests that run the
// control over many streams take a sample.
const raceEnabled = true
