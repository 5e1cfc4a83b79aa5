// Package fuzzkit is the plumbing every fuzz target shares with the two
// engines that run it (go test -fuzz and libFuzzer through
// go-118-fuzz-build): the small testing interface both engines' T satisfy,
// the execution counters the bodies keep, the checks switch, the shim's
// input layout and the seed corpora written in it, go fuzz's corpus file
// format, and FuzzGateVsModel's generic seeds. It imports only the
// standard library (a test holds it to that), so that any package, the
// gate's own fuzz bodies and the state machine's tests included, can use
// it without an import cycle.
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
