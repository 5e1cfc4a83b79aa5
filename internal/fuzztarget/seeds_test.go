package fuzztarget

import (
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
)

// TestSeeds: fuzzkit's generic seeds of FuzzGateVsModel differ from one
// seed value to the next, are in the readings gen.ReadingOf gives them,
// and the machine-reading ones come first.
func TestSeeds(t *testing.T) {
	a, b := fuzzkit.Seeds(0), fuzzkit.Seeds(1)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d and %d seeds", len(a), len(b))
	}
	seen := map[string]bool{}
	for _, s := range append(a, b...) {
		if seen[string(s)] && len(s) > 32 { // the two fixed ones repeat
			t.Fatalf("seed %q repeats", s[:min(len(s), 8)])
		}
		seen[string(s)] = true
	}
	// Every machine-reading seed comes before every gofuzz-reading one.
	others := false
	for i, s := range a {
		switch r := gen.ReadingOf(s); {
		case r == gen.Machine && others:
			t.Fatalf("seed %d is a machine reading after another reading", i)
		case r == gen.Machine && len(s) != 1+fuzzkit.MachineSeedBytes:
			t.Fatalf("machine-reading seed %d has %d bytes, want 1+%d", i, len(s), fuzzkit.MachineSeedBytes)
		case r == gen.Gofuzz:
			others = true
		case r != gen.Machine:
			t.Fatalf("seed %d is in reading %v, want the machine or the gofuzz reading", i, r)
		}
	}
	if gen.ReadingOf(a[0]) != gen.Machine || !others {
		t.Error("want machine-reading seeds first, then others")
	}
}
