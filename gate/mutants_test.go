package gate

import (
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sealgate/sealgate"
)

// Tests written to kill the mutants that survived the suite
// (docs/power/mutants.md names each one). The decision-level ones are
// corpus scenarios; these pin what no decision shows.

// TestWalkSchemaRefuses: the last line of defence of compileSchema refuses a
// compiled schema that reaches outside its own document or into another
// draft, wherever the bad subschema sits. No schema text gets this far
// today (schemaRules refuses first, and the library locates every
// subschema in its document), so the schemas are built by hand.
func TestWalkSchemaRefuses(t *testing.T) {
	const root = "https://sealgate.invalid/tool/0.json#"
	sub := func(loc string, draft int) *jsonschema.Schema {
		return &jsonschema.Schema{Location: loc, DraftVersion: draft}
	}
	inside, inside2 := sub(root+"/$defs/a", 2020), sub(root+"/$defs/b", 2020)
	outside := sub("https://json-schema.org/draft/2020-12/schema#", 2020)
	older := sub(root+"/$defs/c", 2019)
	cases := []struct {
		name string
		s    *jsonschema.Schema
		bad  bool
	}{
		{"all inside", &jsonschema.Schema{Location: root, DraftVersion: 2020, AllOf: []*jsonschema.Schema{inside, inside2}, Ref: inside}, false},
		{"ref outside", &jsonschema.Schema{Location: root, DraftVersion: 2020, Ref: outside}, true},
		{"second of allOf outside", &jsonschema.Schema{Location: root, DraftVersion: 2020, AllOf: []*jsonschema.Schema{inside, outside}}, true},
		{"first of anyOf older", &jsonschema.Schema{Location: root, DraftVersion: 2020, AnyOf: []*jsonschema.Schema{older, inside}}, true},
		{"root older", &jsonschema.Schema{Location: root, DraftVersion: 2019}, true},
		{"root outside", outside, true},
	}
	for _, c := range cases {
		err := walkSchema(c.s, root, map[*jsonschema.Schema]bool{})
		if (err != nil) != c.bad {
			t.Errorf("%s: walkSchema = %v, want refused=%v", c.name, err, c.bad)
		}
	}
}

// TestValidJSONFirstViolationOffset: a noncharacter escape that ends exactly
// where the grammar breaks off is still the first violation, and its
// offset is the one reported.
func TestValidJSONFirstViolationOffset(t *testing.T) {
	for _, c := range []struct {
		in  string
		off int
	}{
		{`"\uFFFE`, 1},
		{`["\uFDD0`, 2},
		{`"\ud83f\udfff`, 1},
		{`{"a":"\udbff\udffe`, 6},
		{`"\uFFFE` + "\x01", 1},
		{`"\ud83f\udffe` + "\x01", 1},
		{`[0.5e400]`, 1},
		{`{"a":[0.0,0e9,-0.7e309]}`, 14},
	} {
		r, err := ValidJSON([]byte(c.in), 8)
		var se *StrictError
		if r != sealgate.MalformedJSON || !errors.As(err, &se) || se.Offset != c.off {
			t.Errorf("ValidJSON(%q) = %q, %v; want malformed-json at offset %d", c.in, r, err, c.off)
		}
	}
}

// TestValidJSONProblems: the error names the kind of grammar violation,
// from a fixed list (never the argument bytes).
func TestValidJSONProblems(t *testing.T) {
	for _, c := range []struct{ in, problem string }{
		{"[\"a\xff\"]", "invalid UTF-8"},
		{`[1,]`, "invalid JSON syntax"},
		{`{"a":1,"a":2}`, "duplicate member name"},
		{`{"a":`, "unexpected end of text"},
		{`{} {}`, "text after the value"},
		{``, "no value"},
	} {
		_, err := ValidJSON([]byte(c.in), 8)
		var se *StrictError
		if !errors.As(err, &se) || se.Problem != c.problem {
			t.Errorf("ValidJSON(%q): %v; want the problem %q", c.in, err, c.problem)
		}
	}
}

// TestStrictReadsOnlyTheText: the strict parse never reads past the end of
// the text it is given, whatever the capacity behind it. Every prefix of a
// text full of escapes, surrogate pairs and multi-byte runes, cut to a
// slice with no room after it, is judged from its own bytes: ValidJSON
// finds it unfinished (malformed-json), and ownScan, whose input may end
// mid-escape or mid-rune (a grammatically valid prefix), finds nothing.
func TestStrictReadsOnlyTheText(t *testing.T) {
	doc := `{"a\u00e9":"x\ud83d\ude00\uFFFD\u0041é😀","\ud800\udc00":[1,"\uDBFF\uDFFD"]}`
	for i := 0; i < len(doc); i++ {
		b := []byte(doc[:i])
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("prefix %q: panic: %v", doc[:i], p)
				}
			}()
			if r, _ := ValidJSON(b[:i:i], 8); r != sealgate.MalformedJSON {
				t.Errorf("ValidJSON(%q) = %q, want malformed-json", doc[:i], r)
			}
			if off, r, _ := ownScan(b[:i:i], 8); off >= 0 {
				t.Errorf("ownScan(%q) found %q at %d", doc[:i], r, off)
			}
		}()
	}
}

// TestLedgerStateString names the three states and any other value.
func TestLedgerStateString(t *testing.T) {
	for s, want := range map[LedgerState]string{Absent: "absent", Intent: "intent", Done: "done", 7: "ledger-state(7)"} {
		if got := s.String(); got != want {
			t.Errorf("LedgerState(%d).String() = %q, want %q", uint8(s), got, want)
		}
	}
}
