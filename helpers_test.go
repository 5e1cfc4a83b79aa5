package sealgate_test

import (
	"testing"

	"github.com/sealgate/sealgate"
)

// TestStringEnd holds StringEnd equal to a byte-at-a-time reading for
// every string text of up to 9 bytes over quote, backslash and a letter,
// resumed at every point before its closing quote and cut at every end, as
// the preview's watcher calls it between writes (and Compact from the
// start).
func TestStringEnd(t *testing.T) {
	// slow reads out, a string from its opening quote, byte by byte.
	slow := func(out []byte) int {
		esc := false
		for i := 1; i < len(out); i++ {
			switch c := out[i]; {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				return i
			}
		}
		return len(out)
	}
	var walk func(text []byte)
	walk = func(text []byte) {
		out := append([]byte{'"'}, text...)
		want := slow(out)
		for from := 1; from <= min(want, len(out)); from++ {
			for end := from; end <= len(out); end++ {
				if got, w := sealgate.StringEnd(out[:end], from), min(want, end); got != w {
					t.Fatalf("StringEnd(%q, %d) = %d, want %d", out[:end], from, got, w)
				}
			}
		}
		if len(text) < 9 {
			for _, c := range []byte{'"', '\\', 'a'} {
				walk(append(text[:len(text):len(text)], c))
			}
		}
	}
	walk(nil)
}
