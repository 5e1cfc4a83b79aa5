package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

const (
	ok = sealgate.Reason("")
	mj = sealgate.MalformedJSON
	td = sealgate.TooDeep
)

func TestValidJSON(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		depth int
		want  sealgate.Reason
	}{
		// valid texts
		{"empty object", `{}`, 1, ok},
		{"surrounding whitespace", " \t\r\n{} \n", 1, ok},
		{"all kinds", `{"a":[1,2.5e3,-0,true,false,null,"x",{}],"b":{"c":""}}`, 3, ok},
		{"surrogate pair", `"\ud83d\ude00"`, 1, ok},
		{"escaped NUL", `"\u0000"`, 1, ok},
		{"raw non-ASCII", "\"é日本😀\"", 1, ok},
		{"DEL", "\"\x7f\"", 1, ok},
		{"case-variant names", `{"a":1,"A":2}`, 1, ok},
		{"top-level scalar", `12`, 1, ok},
		{"underflow to zero", `1e-400`, 1, ok},
		{"huge negative exponent", `[1e-99999999999999999999]`, 1, ok},
		{"beyond float64 precision", `9007199254740993`, 1, ok},
		{"long integer", `123456789012345678901234567890`, 1, ok},
		{"max float", `1.7976931348623157e308`, 1, ok},
		{"rounds down to max float", `1.7976931348623158e308`, 1, ok},
		{"long plain integer below overflow", strings.Repeat("9", 308), 1, ok},
		{"depth exactly at limit", `[[[]]]`, 3, ok},
		{"U+FDCF is a character", `"\ufdcf"`, 1, ok},
		{"U+FDF0 is a character", "\"\uFDF0\"", 1, ok},
		{"U+FFFD is a character", `"\ufffd"`, 1, ok},

		// grammar
		{"empty", ``, 1, mj},
		{"whitespace only", "  \n", 1, mj},
		{"BOM", "\xef\xbb\xbf{}", 1, mj},
		{"form feed", "\f{}", 1, mj},
		{"NBSP", "\u00a0{}", 1, mj},
		{"two values", `{} {}`, 1, mj},
		{"trailing garbage", `{}x`, 1, mj},
		{"trailing NUL", "{}\x00", 1, mj},
		{"leading zero", `01`, 1, mj},
		{"trailing dot", `1.`, 1, mj},
		{"leading dot", `.1`, 1, mj},
		{"plus", `+1`, 1, mj},
		{"hex", `0x1`, 1, mj},
		{"NaN", `NaN`, 1, mj},
		{"Infinity", `Infinity`, 1, mj},
		{"-Infinity", `-Infinity`, 1, mj},
		{"trailing comma array", `[1,]`, 1, mj},
		{"trailing comma object", `{"a":1,}`, 1, mj},
		{"comment", `{}//c`, 1, mj},
		{"block comment", `/**/{}`, 1, mj},
		{"single quotes", `{'a':1}`, 1, mj},
		{"unquoted name", `{a:1}`, 1, mj},
		{"TRUE", `TRUE`, 1, mj},
		{"truncated object", `{"a":1`, 1, mj},
		{"truncated string", `"abc`, 1, mj},
		{"truncated escape", `"\u00`, 1, mj},
		{"bad escape", `"\x"`, 1, mj},
		{"raw control", "\"\x01\"", 1, mj},
		{"raw newline in string", "\"a\nb\"", 1, mj},
		{"invalid UTF-8", "\"\xff\"", 1, mj},
		{"overlong UTF-8", "\"\xc0\xaf\"", 1, mj},
		{"UTF-8 encoded surrogate", "\"\xed\xa0\x80\"", 1, mj},
		{"lone high surrogate", `"\ud800"`, 1, mj},
		{"lone low surrogate", `"\udc00"`, 1, mj},
		{"reversed pair", `"\udc00\ud800"`, 1, mj},
		{"high then letter", `"\ud800x"`, 1, mj},
		{"missing colon", `{"a" 1}`, 1, mj},
		{"missing value", `{"a":}`, 1, mj},
		{"number name", `{1:2}`, 1, mj},
		{"mismatched close", `[}`, 1, mj},
		{"lone minus", `[-]`, 1, mj},

		// duplicate names, after unescaping
		{"duplicate names", `{"a":1,"a":2}`, 1, mj},
		{"duplicate via escape", `{"a":1,"\u0061":2}`, 1, mj},
		{"duplicate via escaped slash", `{"/":1,"\/":2}`, 1, mj},
		{"nested duplicate", `{"x":{"a":1,"a":2}}`, 2, mj},
		{"same name in sibling objects", `[{"a":1},{"a":2}]`, 2, ok},

		// numbers out of range
		{"overflow", `1e400`, 1, mj},
		{"negative overflow", `-1e400`, 1, mj},
		{"half ULP above max", `1.797693134862315808e308`, 1, mj},
		{"huge exponent", `[1e99999999999999999999]`, 1, mj},
		{"long plain integer overflow", strings.Repeat("9", 310), 1, mj},
		{"overflow as a member value", `{"n":1E309}`, 1, mj},

		// noncharacters
		{"literal U+FFFF", "\"\uFFFF\"", 1, mj},
		{"literal U+FFFE", "\"a\uFFFEb\"", 1, mj},
		{"literal U+FDD0", "\"\uFDD0\"", 1, mj},
		{"literal U+FDEF", "\"\uFDEF\"", 1, mj},
		{"literal U+1FFFE", "\"\U0001FFFE\"", 1, mj},
		{"literal U+10FFFF", "\"\U0010FFFF\"", 1, mj},
		{"escaped U+FFFF", `"\uffff"`, 1, mj},
		{"escaped U+FFFE upper", `"\uFFFE"`, 1, mj},
		{"escaped U+FDD0", `"\uFDD0"`, 1, mj},
		{"escaped U+FDEF", `"x\ufdefx"`, 1, mj},
		{"surrogate pair U+1FFFE", `"\ud83f\udffe"`, 1, mj},
		{"surrogate pair U+10FFFF", `"\udbff\udfff"`, 1, mj},
		{"noncharacter in a name", `{"\uffff":1}`, 1, mj},
		{"literal noncharacter in a name", "{\"k\uFDD5\":1}", 1, mj},

		// depth
		{"too deep", `[[]]`, 1, td},
		{"object too deep", `{"a":{}}`, 1, td},
		{"object at limit", `{"a":{}}`, 2, ok},
		{"too deep and truncated", `[[`, 1, td},
		{"truncated at the limit", `[`, 1, mj},
		{"too deep then garbage", `[[[x`, 2, td},
		{"bracket not in a value position", `[-[`, 1, mj},
		{"bracket after an element", `[1 [`, 1, mj},
		{"bracket after a name", `{"a"[`, 1, mj},
		{"bracket as a name", `{[`, 1, mj},
		{"bracket after the value", `{} [`, 1, mj},

		// first violation wins, both ways
		{"overflow before too deep", `[1e400,[[]]]`, 2, mj},
		{"too deep before overflow", `[[[1e400]]]`, 2, td},
		{"noncharacter before too deep", `["\uffff",[[]]]`, 2, mj},
		{"too deep before noncharacter", `[[["\uffff"]]]`, 2, td},
		{"duplicate before too deep", `[{"a":1,"a":2,"b":[[]]}]`, 2, mj},
		{"too deep before duplicate", `[[{"a":1,"a":2}]]`, 2, td},
		{"bad UTF-8 before too deep", "[\"\xff\",[[]]]", 2, mj},
		{"too deep before bad UTF-8", "[[[\"\xff\"]]]", 2, td},
		{"syntax before too deep", `[1,,[[]]]`, 2, mj},
		{"too deep before syntax", `[[[1,,]]]`, 2, td},
		{"lone surrogate before too deep", `["\ud800",[[[]]]]`, 2, mj},
		{"too deep before trailing text", `[[[]]] x`, 2, td},
	}
	for _, c := range cases {
		r, err := ValidJSON([]byte(c.in), c.depth)
		if r != c.want || (err == nil) != (c.want == ok) {
			t.Errorf("%s: ValidJSON(%q, %d) = %q, %v; want %q", c.name, c.in, c.depth, r, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "byte offset ") {
			t.Errorf("%s: error %q does not name a byte offset", c.name, err)
		}
	}
}

func TestValidJSONOffsets(t *testing.T) {
	cases := []struct {
		in    string
		depth int
		off   int
	}{
		{`[-[`, 1, 2},
		{`[[[x`, 2, 2},
		{`{"a":1,"\u0061":2}`, 1, 7},
		{`["\ud800"]`, 1, 2},
		{`[1,"\uffff"]`, 1, 4},
		{"[1,\"ab\uFFFF\"]", 1, 6},
		{`[0,1e400]`, 1, 3},
		{`{}  x`, 1, 4},
		{`[1`, 1, 2},
		{`  `, 1, 2},
	}
	for _, c := range cases {
		_, err := ValidJSON([]byte(c.in), c.depth)
		var se *StrictError
		if !errors.As(err, &se) || se.Offset != c.off {
			t.Errorf("ValidJSON(%q, %d): error %v; want offset %d", c.in, c.depth, err, c.off)
		}
	}
}

// Past jsontext's fixed nesting limit the gate fails closed; at or below
// it, the configured limit decides.
func TestValidJSONParserDepth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	if r, err := ValidJSON(nest(parserMaxDepth), parserMaxDepth); err != nil {
		t.Errorf("nest %d at limit %d: %q %v", parserMaxDepth, parserMaxDepth, r, err)
	}
	if r, _ := ValidJSON(nest(parserMaxDepth+1), parserMaxDepth); r != td {
		t.Errorf("nest %d at limit %d: %q, want too-deep", parserMaxDepth+1, parserMaxDepth, r)
	}
	if r, _ := ValidJSON(nest(parserMaxDepth+1), 5*parserMaxDepth); r != mj {
		t.Errorf("nest %d at limit %d: %q, want malformed-json (fail closed)", parserMaxDepth+1, 5*parserMaxDepth, r)
	}
}

func TestValidJSONErrorsHideArguments(t *testing.T) {
	const s = "SECRETXYZ"
	for _, in := range []string{
		`{"k":"` + s + `","k":"` + s + `"}`,
		`{"` + s + `" 1}`,
		`["` + s + `\x"]`,
		"[\"" + s + "\xff\"]",
		`["` + s + `\ud800"]`,
		`["` + s + `\uffff"]`,
		`[1e999` + s + `]`,
		`[` + s + `]`,
		`{}` + s,
	} {
		_, err := ValidJSON([]byte(in), 4)
		if err == nil {
			t.Errorf("ValidJSON(%q) accepted", in)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "XYZ") {
			t.Errorf("ValidJSON(%q): error %q quotes the arguments", in, err)
		}
	}
}

// Every split point of a valid text leaves a grammatically valid prefix,
// and ownScan must not misread a cut token.
func TestOwnScanPrefixes(t *testing.T) {
	in := []byte(`{"a\u00e9\ud83d\ude00":[1.5e3,-0,"\u0041é😀",true,null],"b":{}}`)
	for i := 0; i <= len(in); i++ {
		if off, r, _ := ownScan(in[:i], 3); off >= 0 {
			t.Errorf("prefix %d: ownScan found %q at %d", i, r, off)
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
