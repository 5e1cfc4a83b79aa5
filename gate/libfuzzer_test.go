//go:build gofuzz

package gate

import "testing"

// FuzzSealTextLibFuzzer is FuzzSealText for libFuzzer (.clusterfuzzlite/
// build.sh): another name, because compile_native_go_fuzzer wants the one
// file under gate/ that names it, and nothing before f.Fuzz.
func FuzzSealTextLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte, depth uint8) { fuzzSealText(t, raw, depth) })
}
