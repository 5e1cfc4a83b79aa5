package gen

import "testing"

func TestReadingOf(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want Reading
	}{
		{nil, Gofuzz}, {[]byte{0}, Gofuzz}, {[]byte{4, 9}, Gofuzz},
		{[]byte{1}, Text}, {[]byte{3}, Text}, {[]byte{255}, Text},
		{[]byte{2}, Machine}, {[]byte{6, 0}, Machine},
	} {
		if got := ReadingOf(c.data); got != c.want {
			t.Errorf("ReadingOf(%v) = %v, want %v", c.data, got, c.want)
		}
	}
	if _, _, ok := Input([]byte{2, 1, 2, 3}); ok {
		t.Error("Input decoded the machine reading, which only package machine can")
	}
}

// TestSeeds: the pseudo-random seeds differ from one seed value to the next, and
// the machine-reading ones come first.
func TestSeeds(t *testing.T) {
	a, b := Seeds(0), Seeds(1)
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
	// Every machine-reading seed comes before every other one.
	others := false
	for i, s := range a {
		switch r := ReadingOf(s); {
		case r == Machine && others:
			t.Fatalf("seed %d is a machine reading after another reading", i)
		case r != Machine:
			others = true
		}
	}
	if ReadingOf(a[0]) != Machine || !others {
		t.Error("want machine-reading seeds first, then others")
	}
}
