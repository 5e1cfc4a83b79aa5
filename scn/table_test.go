package scn

import (
	"errors"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

const okTool = "tool t {\"type\":\"object\"}\n"

// TestInvalidFile covers the left column of the SPEC table and the grammar
// around it: each file must fail Parse, naming the right line.
func TestInvalidFile(t *testing.T) {
	cases := []struct {
		name string
		src  string
		line int
		msg  string // part of the message
	}{
		// not UTF-8
		{"not utf-8 in event", "open a turn=t\xff\n----\n", 1, "UTF-8"},
		{"not utf-8 in comment", "# ok\n# caf\xe9\n----\n", 2, "UTF-8"},
		{"not utf-8 in expected", "open a turn=t\n----\n@1 anomaly a kind=reopen \xc3\n", 3, "UTF-8"},
		{"stray CR", "open a turn=t\rx\n----\n", 1, "carriage return"},
		// a bad Go literal
		{"bad escape", "open a turn=t\ndelta a item=0 \"\\q\"\n----\n", 2, "literal"},
		{"unterminated", "open a turn=t\ndelta a item=0 \"abc\n----\n", 2, "unterminated"},
		{"surrogate escape", "open a turn=t\ndelta a item=0 \"\\ud800\"\n----\n", 2, "literal"},
		{"bad final", "open a turn=t\nend a item=0 final=\"\\x4\"\n----\n", 2, "literal"},
		{"bad allow literal", okTool + "allow t f \"\\z\"\n----\n", 2, "literal"},
		{"raw string is not a Go double-quoted literal", "open a turn=t\ndelta a item=0 `x`\n----\n", 2, "literal"},
		{"text glued to a literal", "open a turn=t\ndelta a item=0 \"x\"y\n----\n", 2, "after the closing quote"},
		// an unknown line word
		{"unknown word", "open a turn=t\nopne a turn=t\n----\n", 2, "unknown line word"},
		{"case matters", "Tool t {}\n----\n", 1, "unknown line word"},
		{"bom", "\ufefftool t {}\n----\n", 1, "byte order mark"},
		{"decision before separator", "open a turn=t\n@1 anomaly a kind=reopen\n----\n", 2, "before the ----"},
		{"unknown decision word", "open a turn=t\n----\n@1 accept a item=0\n", 3, "unknown decision word"},
		// wrong tokens, token count or order
		{"open without turn", "open a\n----\n", 1, "turn="},
		{"open order", "open turn=t a\n----\n", 1, "turn="},
		{"begin order", "begin a call=c item=0 tool=t\n----\n", 1, "item="},
		{"begin short", "begin a item=0 call=c\n----\n", 1, "tool="},
		{"delta bare bytes", "delta a item=0 abc\n----\n", 1, "literal"},
		{"delta no bytes", "delta a item=0\n----\n", 1, "literal"},
		{"end bare final", "end a item=0 final=abc\n----\n", 1, "literal"},
		{"end other field", "end a item=0 fin=\"\"\n----\n", 1, "final="},
		{"close status", "close a status=done\n----\n", 1, "unknown status"},
		{"ack word", "ack k yes\n----\n", 1, "ok or fail"},
		{"ack short", "ack k\n----\n", 1, "ok or fail"},
		{"quote in bare token", "open a\"b turn=t\n----\n", 1, "bare token"},
		{"tool without schema", "tool t\n----\n", 1, "schema"},
		{"tool without schema, trailing blank", "tool t  \t\n----\n", 1, "schema"},
		{"allow without value", okTool + "allow t f\n----\n", 2, "at least one value"},
		{"idem short", okTool + "idem t\n----\n", 2, "idem mode"},
		{"secret short", okTool + "secret t\n----\n", 2, "secret field"},
		{"secret quoted", okTool + "secret t \"a b\"\n----\n", 2, "bare token"},
		{"empty policy", "policy\n----\n", 1, "policy needs"},
		{"policy order", "policy batch=atomic release=after-turn\n----\n", 1, "order"},
		{"limit order", "limit depth=3 calls=2\n----\n", 1, "order"},
		{"N not a number", "open a turn=t\n----\n@x anomaly a kind=reopen\n", 3, "decimal"},
		{"N signed", "open a turn=t\n----\n@+1 anomaly a kind=reopen\n", 3, "decimal"},
		{"N too big", "open a turn=t\n----\n@99999999999999999999999 anomaly a kind=reopen\n", 3, "too big"},
		{"N zero", "open a turn=t\n----\n@0 anomaly a kind=reopen\n", 3, "from 1"},
		{"N past the events", "open a turn=t\n----\n@2 anomaly a kind=reopen\n", 3, "from 1"},
		{"N going back", "open a turn=t\nopen a turn=t\n----\n@2 anomaly a kind=reopen\n@1 anomaly a kind=reopen\n", 5, "event order"},
		{"no @", "open a turn=t\n----\n1 anomaly a kind=reopen\n", 3, "@N"},
		// text after a line's last field
		{"text after restart", "restart now\n----\n", 1, "after the last field"},
		{"text after literal", "delta a item=0 \"x\" y\n----\n", 1, "after the last field"},
		{"text after final", "end a item=0 final=\"x\" y\n----\n", 1, "after the last field"},
		{"text after early", okTool + "early t x\n----\n", 2, "after the last field"},
		{"text after idem", okTool + "idem t args x\n----\n", 2, "after the last field"},
		{"text after reject", "open a turn=t\n----\n@1 reject a item=0 reason=schema x\n", 3, "after the last field"},
		{"key on a plain anomaly", "open a turn=t\n----\n@1 anomaly a kind=reopen key=k\n", 3, "after the last field"},
		{"trailing comment", "restart # bye\n----\n", 1, "after the last field"},
		// an unknown limit name; a key twice on one limit or policy line
		{"unknown limit", "limit bytes=3\n----\n", 1, "unknown key"},
		{"limit without =", "limit calls\n----\n", 1, "unknown key"},
		{"limit twice", "limit calls=2 calls=3\n----\n", 1, "twice"},
		{"policy twice", "policy release=per-call release=per-call\n----\n", 1, "twice"},
		{"unknown policy key", "policy mode=atomic\n----\n", 1, "unknown key"},
		// a policy value outside its choices
		{"release value", "policy release=eager\n----\n", 1, "expected after-turn or per-call"},
		{"batch value", "policy batch=all\n----\n", 1, "expected independent or atomic"},
		{"empty policy value", "policy release=\n----\n", 1, "expected"},
		// an idem mode other than args, call, fields:...
		{"idem mode", okTool + "idem t key\n----\n", 2, "unknown mode"},
		{"idem fields without colon", okTool + "idem t fields\n----\n", 2, "unknown mode"},
		{"idem case", okTool + "idem t Args\n----\n", 2, "unknown mode"},
		// a configuration line after an event line
		{"config after event", "open a turn=t\ntool t {}\n----\n", 2, "after an event line"},
		{"config after event and comment", "restart\n# x\n\npolicy release=per-call\n----\n", 4, "after an event line"},
		{"config in expected", "----\ntool t {}\n", 2, "@N"},
		// a bad line in the expected part
		{"event in expected", "open a turn=t\n----\nopen a turn=t\n", 3, "@N"},
		{"unknown reason", "open a turn=t\n----\n@1 reject a item=0 reason=bad\n", 3, "unknown reason"},
		{"unknown kind", "open a turn=t\n----\n@1 anomaly a kind=weird\n", 3, "unknown anomaly kind"},
		{"unknown-ack attempt", "ack k ok\n----\n@1 anomaly a kind=unknown-ack key=k\n", 3, "written -"},
		{"unknown-ack without key", "ack k ok\n----\n@1 anomaly - kind=unknown-ack\n", 3, "key="},
		{"release without args", "open a turn=t\n----\n@1 release a item=0 call=c tool=t key=k\n", 3, "args="},
		{"release empty args", "open a turn=t\n----\n@1 release a item=0 call=c tool=t key=k args=\n", 3, "empty"},
		{"release order", "open a turn=t\n----\n@1 release a item=0 tool=t call=c key=k args={}\n", 3, "call="},
		{"preview bytes", "open a turn=t\n----\n@1 preview a item=0 bytes=-1 value=-\n", 3, "decimal"},
		{"preview no value", "open a turn=t\n----\n@1 preview a item=0 bytes=1\n", 3, "value="},
		{"reconcile no key", "open a turn=t\n----\n@1 reconcile a item=0\n", 3, "key="},
		{"compensate extra", "open a turn=t\n----\n@1 compensate a item=0 key=k reason=x\n", 3, "after the last field"},
		{"compensate without its key", "open a turn=t\n----\n@1 compensate a item=0\n", 3, "missing key="},
		{"refused not at 0", "open a turn=t\n----\n@1 refused\n", 3, "@0"},
		{"refused with others", "open a turn=t\n----\n@0 refused\n@1 anomaly a kind=reopen\n", 4, "only decision"},
		{"refused after others", "open a turn=t\n----\n@1 anomaly a kind=reopen\n@0 refused\n", 4, "only decision"},
		{"refused glued", "----\n@0 refusedx\n", 2, "unknown decision word"},
		{"second separator", "----\n----\n", 2, "second"},
		// the separator is required
		{"missing separator", "open a turn=t\n", 1, "missing the ----"},
		{"empty file", "", 1, "missing the ----"},
		{"only comments", "# x\n\n# y\n", 3, "missing the ----"},
		{"separator with text", "open a turn=t\n---- x\n", 2, "unknown line word"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.scn", []byte(c.src))
			if err == nil {
				t.Fatalf("parsed: %#v", s)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T, want *Error", err)
			}
			if e.File != "f.scn" || e.Line != c.line || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("got %q, want line %d and %q", err, c.line, c.msg)
			}
		})
	}
}

// TestRefusedConfiguration covers the right column of the SPEC table: each
// file parses, and Config refuses it.
func TestRefusedConfiguration(t *testing.T) {
	cases := []struct {
		name string
		src  string
		line int // line of the blamed directive, 0 when Validate decides
	}{
		{"limit zero", "limit calls=0\n", 1},
		{"limit negative", "limit depth=-1\n", 1},
		{"limit fraction", "limit call-bytes=1.5\n", 1},
		{"limit word", "limit turn-bytes=x\n", 1},
		{"limit empty", "limit preview-bytes=\n", 1},
		{"limit plus", "limit calls=+3\n", 1},
		{"limit exponent", "limit calls=1e3\n", 1},
		{"limit too big for int", "limit calls=99999999999999999999999\n", 1},
		{"limit bad then good", "limit calls=0\nlimit calls=3\n", 1},
		{"per-call with atomic", "policy release=per-call batch=atomic\n", 0},
		{"per-call with atomic on two lines", "policy batch=atomic\npolicy release=per-call\n", 0},
		{"early without per-call", okTool + "early t\n", 0},
		{"early under after-turn, said later", okTool + "early t\npolicy release=per-call\npolicy release=after-turn\n", 0},
		{"second tool line", okTool + okTool, 0},
		{"second allow line", okTool + "allow t f a\nallow t f b\n", 3},
		{"second idem line", okTool + "idem t args\nidem t args\n", 3},
		{"allow undeclared", okTool + "allow u f a\n", 2},
		{"early undeclared", okTool + "policy release=per-call\nearly u\n", 3},
		{"idem undeclared", "idem u call\n", 1},
		{"secret undeclared", okTool + "secret u x\n", 2},
		{"idem fields empty", okTool + "idem t fields:\n", 0},
		{"idem fields empty name", okTool + "idem t fields:a,,b\n", 0},
		{"idem fields trailing comma", okTool + "idem t fields:a,\n", 0},
		{"secret bad tilde", okTool + "secret t /a~2b\n", 0},
		{"secret tilde at end", okTool + "secret t /a~\n", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("r.scn", []byte(c.src+"----\n@0 refused\n"))
			if err != nil {
				t.Fatalf("the file must parse: %v", err)
			}
			cfg, err := s.Config()
			if err == nil {
				t.Fatalf("accepted: %#v", cfg)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "r.scn" || e.Line != c.line || !strings.Contains(e.Msg, "refused") {
				t.Errorf("got %#v (%v), want line %d", err, err, c.line)
			}
		})
	}
}

// TestAcceptedConfiguration: the near misses of the refusal table are fine.
func TestAcceptedConfiguration(t *testing.T) {
	for _, src := range []string{
		"limit calls=1 depth=0001\n",
		"limit call-bytes=9223372036854775807\n",
		"policy release=per-call batch=independent\n",
		"policy release=after-turn batch=atomic\n",
		okTool + "policy release=per-call\nearly t\n",
		okTool + "idem t fields:a\n",
		okTool + "idem t fields:a,b,a\n",
		okTool + "secret t /a~0b~1c\n",
		okTool + "secret t a~2b\n", // a member name, not a pointer
		okTool + "secret t /\n",
		"tool t not json at all\n", // schemas are the gate's and model's business
		okTool + "tool u {}\nallow u f x\n",
	} {
		s, err := Parse("ok.scn", []byte(src+"----\n"))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if _, err := s.Config(); err != nil {
			t.Errorf("%q refused: %v", src, err)
		}
	}
	s, _ := Parse("x", []byte("tool t not json at all \n----\n"))
	if c, err := s.Config(); err != nil || c.Tools[0].Schema != "not json at all " {
		t.Errorf("schema kept as written: %v %#v", err, c)
	}
}

// TestConfigRechecksBuiltDirectives: a Directive built by code that does
// not fit the grammar is not turned into a configuration.
func TestConfigRechecksBuiltDirectives(t *testing.T) {
	for _, d := range []Directive{
		{Word: "tool", Args: []string{"t"}},
		{Word: "tool", Args: []string{"a b", "{}"}},
		{Word: "tool", Args: []string{"t", "{\n}"}},
		{Word: "policy", Args: []string{"release=sometimes"}},
		{Word: "limit", Args: []string{"bytes=1"}},
		{Word: "allow", Args: []string{"t", "f"}},
		{Word: "allow", Args: []string{"t", "f", `"x`}},
		{Word: "allow", Args: []string{"t", "f", `"x" "y"`}},
		{Word: "idem", Args: []string{"t", "every"}},
		{Word: "frob", Args: nil},
	} {
		s := &Scenario{Name: "built", Setup: []Directive{{Word: "tool", Args: []string{"t", "{}"}}, d}}
		if _, err := s.Config(); err == nil {
			t.Errorf("%#v accepted", d)
		}
	}
}

func TestFromConfig(t *testing.T) {
	cfgs := []sealgate.Config{
		sealgate.DefaultConfig(),
		{}, // zero limits: written as is, so that it stays refused
		{
			Tools: []sealgate.Tool{
				{Name: "a", Schema: `{"type":"object"}`, Early: true,
					Allow:   &sealgate.Allow{Field: "path", Values: []string{"x", "", "a b", "\xff\"", "q\n"}},
					Idem:    sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"p", "q"}},
					Secrets: []string{"tok", "/x/y~1z"}},
				{Name: "b", Schema: "{}", Idem: sealgate.Idem{Mode: sealgate.IdemCall}},
			},
			Release: sealgate.PerCall,
			Limits:  sealgate.Limits{CallBytes: 1, TurnBytes: 2, Calls: 3, Depth: 4, PreviewBytes: 5},
		},
		{Tools: []sealgate.Tool{{Name: "a", Schema: "{}"}, {Name: "a", Schema: "{}"}}, Batch: sealgate.Atomic, Limits: sealgate.DefaultLimits()},
	}
	for i, c := range cfgs {
		ds, err := FromConfig(c)
		if err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		s := &Scenario{Name: "from", Setup: ds}
		s2, err := Parse("from", s.Format())
		if err != nil {
			t.Fatalf("config %d: %v\n%s", i, err, s.Format())
		}
		got, err1 := s2.Config()
		wantErr := c.Validate()
		if (err1 == nil) != (wantErr == nil) {
			t.Fatalf("config %d: refused %v, Validate says %v", i, err1, wantErr)
		}
		if err1 == nil && !sameConfig(got, c) {
			t.Errorf("config %d:\n got %#v\nwant %#v", i, got, c)
		}
	}
	for _, bad := range []sealgate.Config{
		{Tools: []sealgate.Tool{{Name: "a b", Schema: "{}"}}},
		{Tools: []sealgate.Tool{{Name: "a", Schema: "{\n}"}}},
		{Tools: []sealgate.Tool{{Name: "a", Schema: "{}", Idem: sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"x,y"}}}}},
		{Tools: []sealgate.Tool{{Name: "a", Schema: "{}", Secrets: []string{"a b"}}}},
		{Tools: []sealgate.Tool{{Name: "a", Schema: "{}", Allow: &sealgate.Allow{Field: "f"}}}},
	} {
		if ds, err := FromConfig(bad); err == nil {
			t.Errorf("%#v written as %v", bad, ds)
		}
	}
}

func sameConfig(a, b sealgate.Config) bool {
	if a.Release != b.Release || a.Batch != b.Batch || a.Limits != b.Limits || len(a.Tools) != len(b.Tools) {
		return false
	}
	for i := range a.Tools {
		x, y := a.Tools[i], b.Tools[i]
		if x.Name != y.Name || x.Schema != y.Schema || x.Early != y.Early || x.Idem.String() != y.Idem.String() ||
			!sameStrings(x.Secrets, y.Secrets) || (x.Allow == nil) != (y.Allow == nil) {
			return false
		}
		if x.Allow != nil && (x.Allow.Field != y.Allow.Field || !sameStrings(x.Allow.Values, y.Allow.Values)) {
			return false
		}
	}
	return true
}
