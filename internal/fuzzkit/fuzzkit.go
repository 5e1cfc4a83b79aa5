// Package fuzzkit is what every fuzz target body shares with the two
// engines that run it: the small testing interface both go test's *testing.T
// and go-118-fuzz-build's libFuzzer shim satisfy, a count of executions kept
// by the bodies themselves, and the shim's input layout (so that seeds can
// be written for libFuzzer and its crash files read back). It imports only
// the standard library, so that the bodies inside gate/ can use it without
// an import cycle.
package fuzzkit

// TB is what a fuzz target body may ask of its engine. *testing.T,
// *rapid.T and the shim's *testing.T (github.com/AdamKorcz/go-118-fuzz-build/
// testing, whose Errorf and Fatalf panic) all have these methods; the shim
// has no testing.TB, so a body cannot take that.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}
