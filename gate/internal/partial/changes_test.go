package partial

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// TestWatchTable: for every table case, whole, byte by byte and split in
// two at every position, the changes rebuild the snapshot after every write.
func TestWatchTable(t *testing.T) {
	for _, c := range cases {
		in := []byte(c.in)
		watchRun(t, c.parser(t), [][]byte{in})
		watchRun(t, c.parser(t), bytewise(in))
		for i := 0; i <= len(in) && len(in) < 300; i++ {
			watchRun(t, c.parser(t), [][]byte{in[:i], in[i:]})
		}
	}
}

// TestWatchLateStart: a watcher created after bytes were written reports
// them on its first Next, and two watchers do not disturb each other.
func TestWatchLateStart(t *testing.T) {
	in := []byte(`{"a":[1,"x\u00e9y",{"b":null}],"token":"zz","c":"long`)
	p := New(64, 1<<20, [][]string{{"token"}})
	early := p.Watch()
	var ev View
	for _, c := range early.Next(nil) {
		ev.Apply(c)
	}
	p.Write(in[:20])
	for _, c := range early.Next(nil) {
		ev.Apply(c)
	}
	p.Write(in[20:])
	late := p.Watch()
	var lv View
	for _, c := range late.Next(nil) {
		if !lv.Apply(c) {
			t.Fatalf("late: %v does not fit", c)
		}
	}
	for _, c := range early.Next(nil) {
		if !ev.Apply(c) {
			t.Fatalf("early: %v does not fit", c)
		}
	}
	want := `{"a":[1,"x\u00e9y",{"b":null}],"token":"[redacted]","c":"long"}`
	if p.Snapshot() != want || lv.String() != want || ev.String() != want {
		t.Fatalf("snapshot %s, late %s, early %s, want %s", p.Snapshot(), lv.String(), ev.String(), want)
	}
}

// TestWatchKinds pins the change sequence of one stream.
func TestWatchKinds(t *testing.T) {
	p := New(64, 1<<20, [][]string{{"token"}})
	chunks := [][]byte{[]byte(`{"path":"no`), []byte(`tes.md","n":[12,tr`), []byte(`ue],"token":"ab`), []byte(`c","x":1}x`)}
	var got []string
	for _, c := range watchRun(t, p, chunks) {
		got = append(got, c.String())
	}
	want := []string{`open . {`, `open /"path" "`, `grow /"path" no`, `grow /"path" tes.md`, `close /"path"`,
		`open /"n" [`, `scalar /"n"/0 12`, `scalar /"n"/1 true`, `close /"n"`, `redacted /"token"`,
		`scalar /"x" 1`, `close .`, `stop . violation`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWatchSecretsNeverSent: a secret value split at every position never
// puts any of its bytes into a change.
func TestWatchSecretsNeverSent(t *testing.T) {
	docs := []string{
		`{"token":"QZQZ\u0051Z","a":1}`,
		`{"token":-797.97e-7,"a":1}`,
		`{"o":{"token":{"k":"QZ","l":[9,7,"QQ"]}},"a":1}`,
		`{"o":{"token":"QZ`,
	}
	for _, d := range docs {
		in := []byte(d)
		for i := 0; i <= len(in); i++ {
			for j := i; j <= len(in); j++ {
				p := New(64, 1<<20, [][]string{{"token"}, {"o", "token"}})
				for _, c := range watchRun(t, p, [][]byte{in[:i], in[i:j], in[j:]}) {
					if strings.ContainsAny(c.Text, "QZ79k") {
						t.Fatalf("%s split %d,%d: change %v shows secret bytes", d, i, j, c)
					}
				}
			}
		}
	}
}

func watchFuzzSeeds() [][]any {
	var out [][]any
	for _, c := range cases {
		if len(c.in) < 200 {
			out = append(out, []any{[]byte(c.in), uint64(len(c.in) / 2), uint8(3)})
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		var b bytes.Buffer
		genDoc(r, &b, 4)
		out = append(out, []any{b.Bytes(), r.Uint64(), uint8(r.IntN(8))})
	}
	return out
}

// FuzzWatch: any bytes, any chunking: the changes rebuild the snapshot after
// every write, and nothing follows a stop (fuzzWatch).
func FuzzWatch(f *testing.F) {
	fuzzkit.AddSeeds(f, watchFuzzSeeds())
	f.Fuzz(func(t *testing.T, in []byte, cutBits uint64, depth uint8) { fuzzWatch(t, in, cutBits, depth) })
}

// TestWatchRandomValid: random valid documents fed in random chunks.
func TestWatchRandomValid(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for n := 0; n < 2000; n++ {
		var b bytes.Buffer
		genDoc(r, &b, 5)
		in := b.Bytes()
		var chunks [][]byte
		for len(in) > 0 {
			k := min(len(in), r.IntN(9))
			chunks = append(chunks, in[:k])
			in = in[k:]
		}
		watchRun(t, New(64, 1<<30, fuzzSecrets), chunks)
	}
}

// TestReserve: room for n more, doubling, never past a limit that fits.
func TestReserve(t *testing.T) {
	b := Reserve(nil, 10, 0)
	if len(b) != 0 || cap(b) < 10 {
		t.Fatalf("len %d cap %d", len(b), cap(b))
	}
	b = append(b, "0123456789"...)
	b = Reserve(b[:10:10], 1, 0)
	if string(b) != "0123456789" || cap(b) != 64 {
		t.Fatalf("%q cap %d", b, cap(b))
	}
	big := make([]byte, 1000)
	if r := Reserve(big, 1, 1500); cap(r) != 1500 || len(r) != 1000 {
		t.Fatalf("limited: len %d cap %d", len(r), cap(r))
	}
	if r := Reserve(big, 600, 1500); cap(r) != 1600 {
		t.Fatalf("over the limit: cap %d, want exactly what is needed", cap(r))
	}
	if r := Reserve(big, 1, 0); cap(r) != 2000 {
		t.Fatalf("doubling: cap %d", cap(r))
	}
}

// TestChangeTextsStay keeps every change of a long stream, spread over many
// arena blocks, and reads them only at the end: each Text must still be what
// it was when sent, so rebuilding the view from them gives the snapshot.
func TestChangeTextsStay(t *testing.T) {
	doc := []byte(`{"a":"` + strings.Repeat(`0123456789\"x\u00e9`, 2000) + `","n":[1,22,333]}`)
	p := New(64, 1<<20, nil)
	w := p.Watch()
	var all []Change
	for i := 0; i < len(doc); i += 7 {
		p.Write(doc[i:min(i+7, len(doc))])
		all = w.Next(all)
	}
	var v View
	var grown strings.Builder
	for _, c := range all {
		if !v.Apply(c) {
			t.Fatalf("change %v does not fit", c)
		}
		if c.Kind == ChangeGrow {
			grown.WriteString(c.Text)
		}
	}
	if got, want := v.String(), p.Snapshot(); got != want {
		t.Fatalf("view from kept changes differs from the snapshot:\n%.200s\n%.200s", got, want)
	}
	if want := strings.Repeat(`0123456789\"x\u00e9`, 2000); grown.String() != want {
		t.Fatalf("kept grow texts add up to %d bytes, want %d", grown.Len(), len(want))
	}
}

// TestRecycle: a retired parser shows nothing and ignores writes, its old
// watcher sends nothing of what the buffer's next owner writes, and the
// next parser fills the same buffer correctly.
func TestRecycle(t *testing.T) {
	old := New(64, 1<<20, nil)
	w := old.Watch()
	idle := old.Watch() // reads nothing before the parser retires
	old.Write([]byte(`{"secretish":"first call's text`))
	w.Next(nil)
	buf := old.Recycle()
	if len(buf) != 0 || cap(buf) == 0 {
		t.Fatalf("Recycle gave len %d cap %d, want an emptied buffer", len(buf), cap(buf))
	}
	if s := old.Snapshot(); s != "-" {
		t.Fatalf("retired parser shows %s", s)
	}
	next := New(64, 1<<20, nil)
	next.Reuse(buf)
	next.Write([]byte(`{"k":"second"`))
	old.Write([]byte(`","more":1}`))
	if cs := w.Next(nil); len(cs) != 0 {
		t.Fatalf("old watcher sent %v after its parser retired", cs)
	}
	if cs := idle.Next(nil); len(cs) != 0 {
		t.Fatalf("a watcher that had read nothing sent %v after its parser retired", cs)
	}
	if s := old.Snapshot(); s != "-" {
		t.Fatalf("retired parser shows %s after a write", s)
	}
	if got, want := next.Snapshot(), `{"k":"second"}`; got != want {
		t.Fatalf("reused parser shows %s, want %s", got, want)
	}
	if &next.out[:1][0] != &buf[:1][0] {
		t.Fatal("the new parser did not fill the recycled buffer")
	}
	// A parser with output keeps its own buffer.
	next.Reuse(make([]byte, 0, 1<<16))
	if &next.out[:1][0] != &buf[:1][0] {
		t.Fatal("Reuse replaced a buffer that already held output")
	}
}

// TestWatchAllocatesPerBlock: following a long string 16 bytes at a time
// costs an allocation per text block of the arena, not one per change.
func TestWatchAllocatesPerBlock(t *testing.T) {
	doc := []byte(`{"a":"` + strings.Repeat("0123456789abcdef", 4096) + `"}`)
	allocs := testing.AllocsPerRun(5, func() {
		p := New(64, 1<<20, nil)
		p.Reuse(make([]byte, 0, 2*len(doc)))
		w := p.Watch()
		changes := make([]Change, 0, 8)
		for i := 0; i < len(doc); i += 16 {
			p.Write(doc[i:min(i+16, len(doc))])
			changes = w.Next(changes[:0])
		}
	})
	// 4,098 changes in 64 KiB of text: 16 blocks, plus the parser, the
	// watcher and their stacks.
	if allocs > 40 {
		t.Fatalf("following 4,098 changes allocated %.0f times, want one per %d-byte block", allocs, textBlock)
	}
}

// TestViewGrowsTheRightString interleaves the growth of two strings, and of
// two paths that are equal but not the same slice: the view's shortcut for
// the string that grew last must never take another string for it.
func TestViewGrowsTheRightString(t *testing.T) {
	p0 := []PathStep{{Index: 0}}
	p1 := []PathStep{{Index: 1}}
	p0again := []PathStep{{Index: 0}}
	var v View
	for i, c := range []Change{
		{Kind: ChangeOpen, Text: "["},
		{Kind: ChangeOpen, Path: p0, Text: `"`},
		{Kind: ChangeOpen, Path: p1, Text: `"`},
		{Kind: ChangeGrow, Path: p0, Text: "a"},
		{Kind: ChangeGrow, Path: p1, Text: "b"},
		{Kind: ChangeGrow, Path: p1, Text: "c"},
		{Kind: ChangeGrow, Path: p0again, Text: "d"},
		{Kind: ChangeGrow, Path: p0, Text: "e"},
	} {
		if !v.Apply(c) {
			t.Fatalf("change %d (%v) refused", i, c)
		}
	}
	if got, want := v.String(), `["ade","bc"]`; got != want {
		t.Fatalf("view %s, want %s", got, want)
	}
	v.Apply(Change{Kind: ChangeGone})
	if v.Apply(Change{Kind: ChangeGrow, Path: p0, Text: "f"}) || v.String() != "-" {
		t.Fatalf("a gone view took a growth: %s", v.String())
	}
}

// TestRope: a rope holds exactly what was written, in chunks of at most
// ropeChunk bytes (or one write, when a single write is longer), give or
// take the heap's rounding: it never
// grows one buffer, which would copy and touch twice the text.
func TestRope(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var rp rope
	var want strings.Builder
	longest := 0
	for range 20000 {
		n := r.IntN(40)
		if r.IntN(500) == 0 {
			n = ropeChunk + r.IntN(1000)
		}
		longest = max(longest, n)
		s := strings.Repeat(string(rune('a'+r.IntN(26))), n)
		rp.WriteString(s)
		want.WriteString(s)
	}
	var got strings.Builder
	rp.writeTo(&got)
	if got.String() != want.String() {
		t.Fatalf("rope holds %d bytes that differ from the %d written", got.Len(), want.Len())
	}
	for i, c := range append(rp.done, rp.cur.String()) {
		if len(c) > max(ropeChunk, longest)+8192 { // the heap rounds a large buffer up to 8 KiB pages
			t.Fatalf("chunk %d holds %d bytes", i, len(c))
		}
	}
	// 1 MiB in 16-byte writes: chunks double from 64 bytes to 64 KiB (11,
	// about 128 KiB), then 14 more of 64 KiB.
	var big rope
	for range (1 << 20) / 16 {
		big.WriteString("0123456789abcdef")
	}
	if n := len(big.done) + 1; n < 16 || n > 30 {
		t.Fatalf("1 MiB in %d chunks", n)
	}
}

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
