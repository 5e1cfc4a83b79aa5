//go:build gofuzz

package scn

import "testing"

// FuzzParseLibFuzzer is FuzzParse for libFuzzer (.clusterfuzzlite/
// build.sh): another name, because compile_native_go_fuzzer wants the one
// file under scn/ that names it, and nothing before f.Fuzz.
func FuzzParseLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, src []byte) { checkRoundTrip(t, src) })
}
