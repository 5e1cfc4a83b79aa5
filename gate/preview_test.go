package gate

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate/internal/partial"
)

// streamAll reads a stream and applies its changes to v.
func streamAll(t *testing.T, s *PreviewStream, v *PreviewView) []PreviewChange {
	t.Helper()
	cs := s.Next(nil)
	for _, c := range cs {
		if !v.Apply(c) {
			t.Fatalf("change %v does not fit %s", c, v.String())
		}
	}
	return cs
}

// TestWatchEndsWithTheCall: a stream follows its call's peeks and sends
// gone exactly once when the call stops being live, however that happens.
func TestWatchEndsWithTheCall(t *testing.T) {
	small := withLimits(func(l *sealgate.Limits) { l.CallBytes = 40 })
	for _, tc := range []struct {
		name string
		end  []sealgate.Event
	}{
		{"close complete", []sealgate.Event{sealgate.EndEvent("r", "0"), sealgate.CloseEvent("r", sealgate.Complete)}},
		{"close truncated", []sealgate.Event{sealgate.CloseEvent("r", sealgate.Truncated)}},
		{"restart", []sealgate.Event{sealgate.RestartEvent()}},
		{"poisoned", []sealgate.Event{sealgate.DeltaEvent("r", "9", []byte("x"))}},
		{"superseded", []sealgate.Event{sealgate.OpenEvent("r2", "t")}},
		{"too large", []sealgate.Event{sealgate.DeltaEvent("r", "0", []byte(`0123456789012345678901234567890123456789`))}},
	} {
		g, err := New(testConfig(small), NewMemoryLedger())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := g.Watch("r", "0"); ok {
			t.Fatalf("%s: Watch of an unknown attempt", tc.name)
		}
		g.Feed(sealgate.OpenEvent("r", "t"))
		g.Feed(sealgate.BeginEvent("r", "0", "c", "save_file"))
		s, ok := g.Watch("r", "0")
		if !ok {
			t.Fatalf("%s: Watch of a live call refused", tc.name)
		}
		var v PreviewView
		g.Feed(sealgate.DeltaEvent("r", "0", []byte(`{"path":"a.md","content":"x`)))
		streamAll(t, s, &v)
		ds, _ := g.Feed(sealgate.PeekEvent("r", "0"))
		if v.String() != ds[0].Preview.Value || s.Bytes() != ds[0].Preview.Bytes {
			t.Fatalf("%s: stream %s bytes=%d, peek %v", tc.name, v.String(), s.Bytes(), ds[0])
		}
		for _, ev := range tc.end {
			g.Feed(ev)
		}
		cs := streamAll(t, s, &v)
		if len(cs) != 1 || cs[0].Kind != ChangeGone || v.String() != "-" || s.Bytes() != 0 {
			t.Fatalf("%s: after the end: %v, view %s, bytes %d", tc.name, cs, v.String(), s.Bytes())
		}
		if cs := s.Next(nil); len(cs) != 0 {
			t.Fatalf("%s: changes after gone: %v", tc.name, cs)
		}
		if _, ok := g.Watch("r", "0"); ok {
			t.Fatalf("%s: Watch of a call that is not live", tc.name)
		}
	}
}

// TestWatchSecretAndCap: a secret member shows redacted, and the stream
// stops at preview-bytes like the peek.
func TestWatchSecretAndCap(t *testing.T) {
	cfg := testConfig(withTool(sealgate.Tool{Name: "login", Schema: `{"type":"object"}`, Secrets: []string{"password"}}),
		withLimits(func(l *sealgate.Limits) { l.PreviewBytes = 30 }))
	g, err := New(cfg, NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	g.Feed(sealgate.OpenEvent("r", "t"))
	g.Feed(sealgate.BeginEvent("r", "0", "c", "login"))
	s, _ := g.Watch("r", "0")
	var v PreviewView
	var all []PreviewChange
	for _, part := range []string{`{"user":"ann","pass`, `word":"hun`, `ter2","note":"abcdefghij"}`} {
		g.Feed(sealgate.DeltaEvent("r", "0", []byte(part)))
		all = append(all, streamAll(t, s, &v)...)
		ds, _ := g.Feed(sealgate.PeekEvent("r", "0"))
		if v.String() != ds[0].Preview.Value {
			t.Fatalf("after %q: stream %s, peek %s", part, v.String(), ds[0].Preview.Value)
		}
	}
	if want := `{"user":"ann","password":"[redacted]"}`; v.String() != want {
		t.Fatalf("view %s, want %s", v.String(), want)
	}
	last := all[len(all)-1]
	if last.Kind != ChangeStop || last.Violation {
		t.Fatalf("last change %v, want a stop at the cap", last)
	}
	for _, c := range all {
		if c.Kind == ChangeRedacted && (len(c.Path) != 1 || c.Path[0].Name != "password" || c.Text != "") {
			t.Fatalf("redacted change %v", c)
		}
	}
}

// TestPreviewBufferRecycled: a decided call hands its raw and preview
// buffers to the next call that begins, and to that one only. Two calls
// live at once never share a buffer (each stream's view equals its peek
// while their deltas interleave), the decided call's stream sends nothing
// after gone, and once the buffers have grown a 256 KiB call allocates no
// more than a 4 KiB one (without the hand-over each buffer grows again by
// doubling, a handful of allocations per call).
func TestPreviewBufferRecycled(t *testing.T) {
	g, err := New(testConfig(withLimits(func(l *sealgate.Limits) { l.PreviewBytes = 1 << 20 })), NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	call := func(id string, content string, s **PreviewStream) {
		a := "r" + id
		g.Feed(sealgate.OpenEvent(a, "t"+id))
		g.Feed(sealgate.BeginEvent(a, "0", "c"+id, "save_file"))
		if s != nil {
			*s, _ = g.Watch(a, "0")
		}
		raw := []byte(`{"path":"a.md","content":"` + content + `"}`)
		for i := 0; i < len(raw); i += 16 {
			g.Feed(sealgate.DeltaEvent(a, "0", raw[i:min(i+16, len(raw))]))
		}
		g.Feed(sealgate.CloseEvent(a, sealgate.Truncated))
	}
	var first *PreviewStream
	var v PreviewView
	call("a", strings.Repeat("first call ", 100), &first)
	streamAll(t, first, &v)

	// Two calls of one attempt, live together, after the hand-over.
	g.Feed(sealgate.OpenEvent("rb", "tb"))
	g.Feed(sealgate.BeginEvent("rb", "0", "cb0", "save_file"))
	g.Feed(sealgate.BeginEvent("rb", "1", "cb1", "save_file"))
	s0, _ := g.Watch("rb", "0")
	s1, _ := g.Watch("rb", "1")
	var v0, v1 PreviewView
	raw0, raw1 := []byte(`{"path":"zero.md","content":"0000000000"}`), []byte(`{"path":"one.md","content":"1111111111"}`)
	for i := 0; i < len(raw0) || i < len(raw1); i += 5 {
		for _, x := range []struct {
			item string
			raw  []byte
			s    *PreviewStream
			v    *PreviewView
		}{{"0", raw0, s0, &v0}, {"1", raw1, s1, &v1}} {
			if i < len(x.raw) {
				g.Feed(sealgate.DeltaEvent("rb", x.item, x.raw[i:min(i+5, len(x.raw))]))
			}
			streamAll(t, x.s, x.v)
			ds, _ := g.Feed(sealgate.PeekEvent("rb", x.item))
			if x.v.String() != ds[0].Preview.Value {
				t.Fatalf("call %s: stream %s, peek %s", x.item, x.v.String(), ds[0].Preview.Value)
			}
		}
	}
	if want := `{"path":"zero.md","content":"0000000000"}`; v0.String() != want {
		t.Fatalf("call 0's view %s, want %s", v0.String(), want)
	}
	if cs := first.Next(nil); len(cs) != 0 {
		t.Fatalf("the first call's stream, after gone, sent %v", cs)
	}
	g.Feed(sealgate.CloseEvent("rb", sealgate.Truncated))

	short, long := strings.Repeat("x", 4<<10), strings.Repeat("x", 256<<10)
	n := 0
	cycle := func(content string) func() {
		return func() { n++; call("c"+strconv.Itoa(n), content, nil) }
	}
	cycle(long)() // grow the buffers once
	if s, l := testing.AllocsPerRun(20, cycle(short)), testing.AllocsPerRun(20, cycle(long)); l > s {
		t.Fatalf("a 256 KiB call allocates %.1f times, a 4 KiB call %.1f: buffers are not reused", l, s)
	}
}

// TestSparePreviewKept: a preview that filled preview-bytes has grown to
// twice that (doubling), and that buffer is still handed on.
func TestSparePreviewKept(t *testing.T) {
	g, err := New(testConfig(withLimits(func(l *sealgate.Limits) { l.PreviewBytes = 1024 })), NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	g.Feed(sealgate.OpenEvent("r", "t"))
	g.Feed(sealgate.BeginEvent("r", "0", "c", "save_file"))
	raw := []byte(`{"path":"a.md","content":"` + strings.Repeat("x", 4096) + `"}`)
	for i := 0; i < len(raw); i += 16 {
		g.Feed(sealgate.DeltaEvent("r", "0", raw[i:min(i+16, len(raw))]))
	}
	g.Feed(sealgate.PeekEvent("r", "0")) // a preview is parsed when read
	g.Feed(sealgate.CloseEvent("r", sealgate.Truncated))
	if c := cap(g.sparePreview); c < 1024 {
		t.Fatalf("after a call that filled preview-bytes 1024, the spare preview buffer has room %d", c)
	}
}

// TestPreviewParsedWhenRead: Feed leaves a call's preview unparsed until a
// peek or a preview stream reads it, and then it is exactly what parsing
// delta by delta gives.
func TestPreviewParsedWhenRead(t *testing.T) {
	g, err := New(testConfig(), NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	g.Feed(sealgate.OpenEvent("r", "t"))
	g.Feed(sealgate.BeginEvent("r", "0", "c", "save_file"))
	raw := []byte(`{"path":"a.md","content":"caf\u00e9 \ud83d\ude00 ` + strings.Repeat("x", 100) + `"}`)
	eager := partial.New(sealgate.DefaultLimits().Depth, sealgate.DefaultLimits().PreviewBytes, nil)
	c := g.attempts["r"].items["0"]
	for i := 0; i < len(raw); i += 7 {
		d := raw[i:min(i+7, len(raw))]
		g.Feed(sealgate.DeltaEvent("r", "0", d))
		eager.Write(d)
		if c.parsed != 0 {
			t.Fatalf("after %d bytes and no peek, %d parsed", i+len(d), c.parsed)
		}
		if i%3 != 0 {
			continue
		}
		// Every third delta, a copy of the gate parses all it holds.
		h, err := New(testConfig(), NewMemoryLedger())
		if err != nil {
			t.Fatal(err)
		}
		h.Feed(sealgate.OpenEvent("r", "t"))
		h.Feed(sealgate.BeginEvent("r", "0", "c", "save_file"))
		h.Feed(sealgate.DeltaEvent("r", "0", raw[:i+len(d)]))
		ds, _ := h.Feed(sealgate.PeekEvent("r", "0"))
		if got, want := ds[0].Preview.Value, eager.Snapshot(); got != want {
			t.Fatalf("after %d bytes: a late peek shows %s, parsing delta by delta %s", i+len(d), got, want)
		}
	}
	ds, _ := g.Feed(sealgate.PeekEvent("r", "0"))
	if got, want := ds[0].Preview.Value, eager.Snapshot(); got != want || c.parsed != len(raw) {
		t.Fatalf("peek shows %s (%d parsed), want %s (%d)", got, c.parsed, want, len(raw))
	}

	// And one byte at a time, a peek after each: every byte is read.
	g.Feed(sealgate.BeginEvent("r", "1", "c1", "save_file"))
	eager = partial.New(sealgate.DefaultLimits().Depth, sealgate.DefaultLimits().PreviewBytes, nil)
	for i := range raw {
		g.Feed(sealgate.DeltaEvent("r", "1", raw[i:i+1]))
		eager.Write(raw[i : i+1])
		ds, _ := g.Feed(sealgate.PeekEvent("r", "1"))
		if got, want := ds[0].Preview.Value, eager.Snapshot(); got != want {
			t.Fatalf("byte by byte, after %d bytes: peek shows %s, want %s", i+1, got, want)
		}
	}
}
