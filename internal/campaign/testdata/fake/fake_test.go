// Package fake is a tiny stand-in for the suite's fuzz targets: the
// campaign's own tests discover its targets and collect its failure.
package fake

import "testing"

// FuzzFails passes its seed and fails on anything else, so the first
// mutated input fails: the campaign test does not wait on luck.
func FuzzFails(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if string(b) != "a" {
			t.Fatalf("planted failure on %q", b)
		}
	})
}

// FuzzPasses never fails.
func FuzzPasses(f *testing.F) {
	f.Add(uint8(1))
	f.Fuzz(func(t *testing.T, n uint8) {})
}
