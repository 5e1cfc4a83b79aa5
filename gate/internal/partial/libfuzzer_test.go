//go:build gofuzz

package partial

import "testing"

// The libFuzzer harnesses of FuzzPartial and FuzzWatch (.clusterfuzzlite/
// build.sh): other names, because compile_native_go_fuzzer wants the one
// file under this folder that names each, and nothing before f.Fuzz.

func FuzzPartialLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte, cutBits uint64, depth uint8) { fuzzPartial(t, in, cutBits, depth) })
}

func FuzzWatchLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte, cutBits uint64, depth uint8) { fuzzWatch(t, in, cutBits, depth) })
}
