package partial

import (
	"strings"
	"testing"
)

// Tests written to kill the mutants that survived the suite
// (docs/power/mutants.md names each one).

// TestWatchGrowCarriesText: a grow change always carries text. An open
// string that has received nothing new since the last Next (an empty
// string, or a pause right after the opening quote or an escape) sends no
// change at all.
func TestWatchGrowCarriesText(t *testing.T) {
	ins := []string{`{"a":"","b":["",""],"c":"x"}`, `{"a":"`, `"\u00e9"`}
	for _, c := range cases {
		ins = append(ins, c.in)
	}
	for _, in := range ins {
		for _, chunks := range [][][]byte{{[]byte(in)}, bytewise([]byte(in))} {
			for _, c := range watchRun(t, New(64, 1<<30, nil), chunks) {
				if c.Kind == ChangeGrow && c.Text == "" {
					t.Fatalf("%q: empty grow at %v", in, c.Path)
				}
			}
		}
	}
}

// TestWatchStopsAtCap: the watcher says stop (not a violation) as soon as
// the preview-bytes cap is reached, by the very write that fills it, and a
// parser with no room at all is stopped from the start.
func TestWatchStopsAtCap(t *testing.T) {
	got := watchRun(t, New(64, 5, nil), [][]byte{[]byte(`[1,2,`)})
	if last := got[len(got)-1]; last.Kind != ChangeStop || last.Violation {
		t.Fatalf("after exactly the cap: last change %v, want stop", last)
	}
	if got := New(64, 0, nil).Watch().Next(nil); len(got) != 1 || got[0].Kind != ChangeStop || got[0].Violation {
		t.Fatalf("cap 0: changes %v, want one stop", got)
	}
}

// TestChangeKindString: a kind outside the list reads "change?", whatever
// its value.
func TestChangeKindString(t *testing.T) {
	for _, k := range []ChangeKind{0, ChangeGone + 1, ChangeKind(len(changeWords)), 255} {
		if s := k.String(); s != "change?" {
			t.Errorf("ChangeKind(%d).String() = %q", k, s)
		}
	}
	if s := ChangeGone.String(); s != "gone" {
		t.Errorf("ChangeGone.String() = %q", s)
	}
}

// TestViewRefusesMisfits: a change that does not fit the view is refused,
// never a panic: a path past the last child, a grow of a non-string.
func TestViewRefusesMisfits(t *testing.T) {
	var v View
	for _, c := range []Change{{Kind: ChangeOpen, Text: "["}, {Kind: ChangeOpen, Path: []PathStep{{Index: 0}}, Text: `"`}} {
		if !v.Apply(c) {
			t.Fatalf("%v refused", c)
		}
	}
	for _, c := range []Change{
		{Kind: ChangeGrow, Path: []PathStep{{Index: 1}}, Text: "x"},
		{Kind: ChangeGrow, Path: []PathStep{{Index: -1}}, Text: "x"},
		{Kind: ChangeGrow, Path: []PathStep{{Index: 0}, {Index: 0}}, Text: "x"},
		{Kind: ChangeGrow, Text: "x"},
		{Kind: ChangeScalar, Path: []PathStep{{Index: 2}}, Text: "1"},
		{Kind: ChangeScalar, Path: []PathStep{{Index: 1, Member: true}}, Text: "1"},
		{Kind: ChangeOpen, Path: []PathStep{{Index: 1}}, Text: "x"},
		{Kind: ChangeScalar, Text: "1"},
	} {
		if v.Apply(c) {
			t.Errorf("%v accepted", c)
		}
	}
	if got := v.String(); got != `[""]` {
		t.Fatalf("view %s after refused changes", got)
	}
}

// TestReserveRoom: Reserve keeps the slice when it has exactly the room
// asked for, and otherwise gives at least that room, however large.
func TestReserveRoom(t *testing.T) {
	b := make([]byte, 3, 13)
	if r := Reserve(b, 10, 0); &r[:1][0] != &b[:1][0] || cap(r) != 13 {
		t.Fatalf("exactly 10 free: reallocated (cap %d)", cap(r))
	}
	for _, n := range []int{65, 1000, 1 << 16} {
		if r := Reserve(b[:3:3], n, 0); len(r) != 3 || cap(r)-len(r) < n {
			t.Fatalf("room for %d: len %d cap %d", n, len(r), cap(r))
		}
	}
}

// TestSurrogatePairEdges: a low half from DC00 to DFFF completes a pair,
// except the two that make a noncharacter of the plane (U+xFFFE, U+xFFFF).
func TestSurrogatePairEdges(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"\ud800\udc00"`, `"\ud800\udc00"`},
		{`"\uDBFF\uDC00x"`, `"\uDBFF\uDC00x"`},
		{`"\ud83f\udffd"`, `"\ud83f\udffd"`},
		{`"a\ud83f\udffe"`, `"a"`},
		{`"a\udbff\udfff"`, `"a"`},
		{`"a\ud800\udbff"`, `"a"`},
	} {
		for _, chunks := range [][][]byte{{[]byte(c.in)}, bytewise([]byte(c.in))} {
			p := New(64, 1<<30, nil)
			for _, ch := range chunks {
				p.Write(ch)
			}
			if got := p.Snapshot(); got != c.want {
				t.Errorf("%s in %d chunks: %s, want %s", c.in, len(chunks), got, c.want)
			}
			if bad := strings.HasSuffix(c.want, `"a"`); p.violated != bad {
				t.Errorf("%s: violated=%v", c.in, p.violated)
			}
		}
	}
}

// TestFastPathBrokenEscapes: a value string read whole (the fast path that
// takes escapes and runes in one step) stops at a broken escape exactly as
// a byte-by-byte read does: a high surrogate followed by anything but a low
// surrogate escape, a lone low surrogate, or a \u escape with a non-hex
// digit.
func TestFastPathBrokenEscapes(t *testing.T) {
	for _, in := range []string{
		`"a\ud83dxude00"`, `"a\ud83d\ndc00"`, `"a\ud83d\ue000"`, `"a\ud83d\ud83d"`,
		`"a\uz000"`, `"a\u00g0"`, `"a\u000G"`, `"a\udc00"`, `"a\udfff"`, `{"k":"a\ud83d\u0041","m":1}`,
	} {
		want := `"a"`
		if in[0] == '{' {
			want = `{"k":"a"}`
		}
		for _, chunks := range [][][]byte{{[]byte(in)}, bytewise([]byte(in))} {
			p := New(64, 1<<30, nil)
			for _, ch := range chunks {
				p.Write(ch)
			}
			if got := p.Snapshot(); got != want || !p.violated {
				t.Errorf("%s in %d chunks: %s (violated %v), want %s", in, len(chunks), got, p.violated, want)
			}
		}
	}
}
