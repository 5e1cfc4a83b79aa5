// Package fake is a tiny stand-in for the suite's fuzz targets: the
// campaign's own tests discover its targets and collect its failure.
package fake

import "testing"

// FuzzFails fails on any input that starts with "!", which go fuzz finds
// within a second or two.
func FuzzFails(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 0 && b[0] == '!' {
			t.Fatalf("planted failure on %q", b)
		}
	})
}

// FuzzPasses never fails.
func FuzzPasses(f *testing.F) {
	f.Add(uint8(1))
	f.Fuzz(func(t *testing.T, n uint8) {})
}
