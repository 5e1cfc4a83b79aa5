package scn

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

// sample holds every line kind of SPEC section 10.
const sample = `# A sample with every line kind.
#second note

tool save_file {"type":"object","required":["path","content"],"properties":{"path":{"type":"string"},"content":{"type":"string"}}}
tool ping {"type":"object"}
allow save_file path notes.md "a b.md" "\xff"
early ping
idem save_file fields:path,content
idem ping call
secret save_file content
secret save_file /auth/tok~1en
policy release=per-call
policy batch=independent
limit call-bytes=100 turn-bytes=1000 calls=5 depth=8 preview-bytes=64
	limit	depth=9
open r1 turn=t1
begin r1 item=0 call=call_1 tool=save_file
delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"Topic confirmed."
delta r1 item=0 ""
# a comment among events is dropped
end r1 item=0
end r1 item=1 final="{}"
close r1 status=disconnected
ack 0123456789abcdef ok
ack fedcba9876543210 fail
restart
peek r2 item=7
----
@1 anomaly r1 kind=reopen
@3 preview r1 item=0 bytes=12 value={"path":"notes.md"}
@6 anomaly r1 item=1 kind=unknown-call
@7 release r1 item=0 call=call_1 tool=save_file key=0011223344556677 args={"a": "b c"}
@7 reject r1 item=0 reason=turn-disconnected
@7 compensate r1 item=0 key=0011223344556677
@7 reconcile r1 item=0 key=0011223344556677
@9 anomaly - kind=unknown-ack key=fedcba9876543210
@11 preview r2 item=7 bytes=0 value=-
`

func mustParse(t *testing.T, name, src string) *Scenario {
	t.Helper()
	s, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func TestSampleParses(t *testing.T) {
	s := mustParse(t, "sample.scn", sample)
	if want := []string{" A sample with every line kind.", "second note"}; !reflect.DeepEqual(s.Notes, want) {
		t.Errorf("notes %q, want %q", s.Notes, want)
	}
	if len(s.Setup) != 12 {
		t.Fatalf("%d directives, want 12", len(s.Setup))
	}
	if d := s.Setup[2]; d.Word != "allow" || !reflect.DeepEqual(d.Args, []string{"save_file", "path", "notes.md", `"a b.md"`, `"\xff"`}) || d.Line != 6 {
		t.Errorf("allow directive %#v", d)
	}
	if d := s.Setup[0]; d.Args[1] != `{"type":"object","required":["path","content"],"properties":{"path":{"type":"string"},"content":{"type":"string"}}}` {
		t.Errorf("schema %q", d.Args[1])
	}
	wantEvents := []sealgate.Event{
		sealgate.OpenEvent("r1", "t1"),
		sealgate.BeginEvent("r1", "0", "call_1", "save_file"),
		sealgate.DeltaEvent("r1", "0", []byte(`{"path":"notes.md","content":"Topic confirmed.`)),
		sealgate.DeltaEvent("r1", "0", nil),
		sealgate.EndEvent("r1", "0"),
		sealgate.EndFinalEvent("r1", "1", []byte("{}")),
		sealgate.CloseEvent("r1", sealgate.Disconnected),
		sealgate.AckEvent("0123456789abcdef", true),
		sealgate.AckEvent("fedcba9876543210", false),
		sealgate.RestartEvent(),
		sealgate.PeekEvent("r2", "7"),
	}
	if len(s.Events) != len(wantEvents) {
		t.Fatalf("%d events, want %d", len(s.Events), len(wantEvents))
	}
	for i := range wantEvents {
		if !EventsEqual(s.Events[i], wantEvents[i]) {
			t.Errorf("event %d: %#v, want %#v", i+1, s.Events[i], wantEvents[i])
		}
	}
	wantDecisions := []sealgate.Decision{
		{At: 1, Kind: sealgate.Anomaly, Attempt: "r1", Anomaly: sealgate.Reopen},
		{At: 3, Kind: sealgate.PreviewAnswer, Attempt: "r1", Item: "0", Preview: sealgate.Preview{Bytes: 12, Value: `{"path":"notes.md"}`}},
		{At: 6, Kind: sealgate.Anomaly, Attempt: "r1", Item: "1", HasItem: true, Anomaly: sealgate.UnknownCall},
		{At: 7, Kind: sealgate.Release, Attempt: "r1", Item: "0", Call: "call_1", Tool: "save_file", Key: "0011223344556677", Args: sealgate.Sealed(`{"a": "b c"}`)},
		{At: 7, Kind: sealgate.Reject, Attempt: "r1", Item: "0", Reason: sealgate.TurnDisconnected},
		{At: 7, Kind: sealgate.Compensate, Attempt: "r1", Item: "0", Key: "0011223344556677"},
		{At: 7, Kind: sealgate.Reconcile, Attempt: "r1", Item: "0", Key: "0011223344556677"},
		{At: 9, Kind: sealgate.Anomaly, Anomaly: sealgate.UnknownAck, Key: "fedcba9876543210"},
		{At: 11, Kind: sealgate.PreviewAnswer, Attempt: "r2", Item: "7", Preview: sealgate.NoPreview},
	}
	if len(s.Expect) != len(wantDecisions) {
		t.Fatalf("%d decisions, want %d", len(s.Expect), len(wantDecisions))
	}
	for i := range wantDecisions {
		if !s.Expect[i].Equal(wantDecisions[i]) {
			t.Errorf("decision %d: %#v, want %#v", i+1, s.Expect[i], wantDecisions[i])
		}
	}

	c, err := s.Config()
	if err != nil {
		t.Fatalf("Config: %v", err)
	}
	want := sealgate.Config{
		Tools: []sealgate.Tool{
			{Name: "save_file", Schema: s.Setup[0].Args[1],
				Allow:   &sealgate.Allow{Field: "path", Values: []string{"notes.md", "a b.md", "\xff"}},
				Idem:    sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"path", "content"}},
				Secrets: []string{"content", "/auth/tok~1en"}},
			{Name: "ping", Schema: `{"type":"object"}`, Early: true, Idem: sealgate.Idem{Mode: sealgate.IdemCall}},
		},
		Release: sealgate.PerCall,
		Batch:   sealgate.Independent,
		Limits:  sealgate.Limits{CallBytes: 100, TurnBytes: 1000, Calls: 5, Depth: 9, PreviewBytes: 64},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Config:\n got %#v\nwant %#v", c, want)
	}
}

func TestFormatRoundTrip(t *testing.T) {
	s := mustParse(t, "sample.scn", sample)
	out := s.Format()
	s2, err := Parse("printed", out)
	if err != nil {
		t.Fatalf("Parse(Format()): %v\n%s", err, out)
	}
	if !s.Equal(s2) {
		t.Fatalf("round trip differs:\n%s", out)
	}
	if !reflect.DeepEqual(normalize(s), normalize(s2)) {
		t.Fatalf("round trip differs under DeepEqual:\n%#v\n%#v", normalize(s), normalize(s2))
	}
	if out2 := s2.Format(); !bytes.Equal(out, out2) {
		t.Fatalf("printing is not stable:\n%s\n---\n%s", out, out2)
	}
	// The printed file keeps what matters verbatim.
	for _, line := range []string{
		`allow save_file path notes.md "a b.md" "\xff"`,
		`@7 release r1 item=0 call=call_1 tool=save_file key=0011223344556677 args={"a": "b c"}`,
		`@9 anomaly - kind=unknown-ack key=fedcba9876543210`,
		"limit depth=9",
		"# A sample with every line kind.",
	} {
		if !bytes.Contains(out, []byte(line+"\n")) {
			t.Errorf("printed file lacks %q", line)
		}
	}
}

// normalize makes nil and empty slices alike and drops line numbers, for
// reflect.DeepEqual.
func normalize(s *Scenario) Scenario {
	n := Scenario{Notes: append([]string{}, s.Notes...)}
	for _, d := range s.Setup {
		n.Setup = append(n.Setup, Directive{Word: d.Word, Args: append([]string{}, d.Args...)})
	}
	for _, e := range s.Events {
		e.Bytes = append([]byte{}, e.Bytes...)
		e.Final = append([]byte{}, e.Final...)
		n.Events = append(n.Events, e)
	}
	for _, d := range s.Expect {
		d.Args = append(sealgate.Sealed{}, d.Args...)
		n.Expect = append(n.Expect, d)
	}
	return n
}

func TestEqualDetectsDifferences(t *testing.T) {
	base := mustParse(t, "a", sample)
	for _, edit := range []struct{ from, to string }{
		{"#second note", "#second  note"},
		{"calls=5", "calls=6"},
		{`"\xff"`, `"\xfe"`},
		{"Topic confirmed.", "Topic confirmed"},
		{`final="{}"`, `final="{ }"`},
		{"ack 0123456789abcdef ok", "ack 0123456789abcdef fail"},
		{"reason=turn-disconnected", "reason=turn-failed"},
		{`args={"a": "b c"}`, `args={"a":"b c"}`},
		{"value=-", "value={}"},
		{"@6 anomaly r1 item=1", "@6 anomaly r1 item=2"},
	} {
		if !strings.Contains(sample, edit.from) {
			t.Fatalf("sample lacks %q", edit.from)
		}
		other := mustParse(t, "b", strings.Replace(sample, edit.from, edit.to, 1))
		if base.Equal(other) || other.Equal(base) {
			t.Errorf("Equal misses the edit %q -> %q", edit.from, edit.to)
		}
	}
}

func TestByteStringsSurvive(t *testing.T) {
	cases := [][]byte{
		{0xff},
		{0xe2, 0x82},        // first two bytes of "€"
		{0xac},              // its last byte alone
		{0, 0, 'a', 0},      // NUL
		[]byte(`"'\` + "`"), // quotes and a backslash
		[]byte("\t\r\n\v\f\a\b"),
		[]byte("é日本\U0001F600"),
		[]byte("\xf0\x9f\x98"), // a cut 4-byte rune
		[]byte("\ufeff\u2028\u00a0"),
		[]byte(`\u00e9 \x41`), // escapes as text
		{},
	}
	for _, b := range cases {
		s := &Scenario{Events: []sealgate.Event{
			sealgate.OpenEvent("a", "t"),
			sealgate.DeltaEvent("a", "0", b),
			sealgate.EndFinalEvent("a", "0", b),
		}}
		out := s.Format()
		s2, err := Parse("bytes", out)
		if err != nil {
			t.Fatalf("%q: %v\n%s", b, err, out)
		}
		if !bytes.Equal(s2.Events[1].Bytes, b) || !bytes.Equal(s2.Events[2].Final, b) || !s2.Events[2].HasFinal {
			t.Errorf("%q came back as %q / %q", b, s2.Events[1].Bytes, s2.Events[2].Final)
		}
	}
	// Written by hand, not by strconv.Quote: octal, \u, \U, and a literal
	// with a space and an escaped quote.
	s := mustParse(t, "x", "open a turn=t\ndelta a item=0 \"\\377\\u00e9\\U0001F600 \\\" x\"\n----\n")
	if got := s.Events[1].Bytes; !bytes.Equal(got, []byte("\xffé\U0001F600 \" x")) {
		t.Errorf("got %q", got)
	}
}

func TestLineEndings(t *testing.T) {
	crlf := strings.ReplaceAll(sample, "\n", "\r\n")
	a, b := mustParse(t, "lf", sample), mustParse(t, "crlf", crlf)
	if !a.Equal(b) {
		t.Error("CRLF file differs from LF file")
	}
	// No final LF, and a CR at the very end.
	for _, src := range []string{"open a turn=t\n----\n@1 anomaly a kind=reopen", "open a turn=t\n----\n@1 anomaly a kind=reopen\r"} {
		s := mustParse(t, "end", src)
		if len(s.Expect) != 1 || s.Expect[0].Attempt != "a" {
			t.Errorf("%q: %#v", src, s.Expect)
		}
	}
}

func TestOptionalForms(t *testing.T) {
	s := mustParse(t, "x", "  open a turn=\n----\n@0 refused\n")
	if s.Events[0].Turn != "" || len(s.Expect) != 1 || s.Expect[0].Kind != sealgate.Refused || s.Expect[0].Text != "" {
		t.Errorf("%#v", s)
	}
	s = mustParse(t, "x", "----\n@0 refused   because \"x\"  \n")
	if got := s.Expect[0].Text; got != `  because "x"  ` {
		t.Errorf("refused text %q", got)
	}
	s = mustParse(t, "x", "----\n")
	if len(s.Events)+len(s.Expect)+len(s.Setup) != 0 {
		t.Errorf("%#v", s)
	}
	// An attempt may be named "-": only unknown-ack turns "-" into "".
	s = mustParse(t, "x", "open - turn=t\n----\n@1 anomaly - kind=reopen\n")
	if s.Expect[0].Attempt != "-" {
		t.Errorf("attempt %q", s.Expect[0].Attempt)
	}
	// Config lines in any order among themselves; an empty limit line.
	s = mustParse(t, "x", "allow t f v\nlimit\ntool t {}\n----\n")
	if c, err := s.Config(); err != nil || c.Tools[0].Allow == nil || c.Limits != sealgate.DefaultLimits() {
		t.Errorf("%v %#v", err, c)
	}
}

func TestLaterPolicyAndLimitWin(t *testing.T) {
	s := mustParse(t, "x", `tool t {}
early t
early t
secret t a
secret t a
policy release=per-call batch=atomic
limit calls=1 depth=1
policy batch=independent
limit calls=3
----
`)
	c, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	if c.Release != sealgate.PerCall || c.Batch != sealgate.Independent || c.Limits.Calls != 3 || c.Limits.Depth != 1 ||
		!c.Tools[0].Early || len(c.Tools[0].Secrets) != 2 {
		t.Errorf("%#v", c)
	}
}

func TestErrorType(t *testing.T) {
	_, err := Parse("dir/f.scn", []byte("open a turn=t\nbogus\n----\n"))
	var e *Error
	if !errors.As(err, &e) || e.File != "dir/f.scn" || e.Line != 2 {
		t.Fatalf("%#v", err)
	}
	if !strings.HasPrefix(err.Error(), "dir/f.scn:2: ") {
		t.Errorf("%q", err.Error())
	}
	if _, err := ParseFile("/nonexistent/x.scn"); err == nil || !strings.Contains(err.Error(), "/nonexistent/x.scn") {
		t.Errorf("ParseFile: %v", err)
	}
}

func TestFormatDecisions(t *testing.T) {
	ds := []sealgate.Decision{
		{At: 2, Kind: sealgate.Reject, Attempt: "a", Item: "0", Reason: sealgate.Superseded},
		{At: 3, Kind: sealgate.Anomaly, Attempt: "a", Item: "", HasItem: true, Anomaly: sealgate.AfterEnd},
	}
	got := string(FormatDecisions(ds))
	if want := "@2 reject a item=0 reason=superseded\n@3 anomaly a item= kind=after-end\n"; got != want {
		t.Fatalf("%q", got)
	}
	for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		d, err := ParseDecisionLine(line)
		if err != nil || !d.Equal(ds[i]) {
			t.Errorf("%q: %v %#v", line, err, d)
		}
	}
	if len(FormatDecisions(nil)) != 0 {
		t.Error("no decisions should print nothing")
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b/z.scn", "a.scn", "b/a.scn", "notes.md", "c/d/e.scn"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range got {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	if want := "a.scn b/a.scn b/z.scn c/d/e.scn"; strings.Join(rel, " ") != want {
		t.Errorf("Files = %v, want %s", rel, want)
	}
	empty := t.TempDir()
	if _, err := Files(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("Files of an empty folder: err %v, want one naming it", err)
	}
	if _, err := Files(filepath.Join(dir, "missing")); err == nil {
		t.Error("Files of a missing folder: no error")
	}
}
