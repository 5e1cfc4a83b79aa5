package partial

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

// tc is one preview case: the bytes of a call, the expected value V, and
// whether those bytes contain a violation (P is shorter than the input).
type tc struct {
	name    string
	in      string
	want    string
	bad     bool     // a violation lies within in
	depth   int      // 0: 64
	cap     int      // 0: unlimited
	secrets []string // declarations as in a scenario's secret lines
}

var d400 = "1" + strings.Repeat("0", 399) // 10^399: overflows without an exponent

var cases = []tc{
	// nothing readable
	{name: "empty", in: "", want: "-"},
	{name: "ws", in: " \t\r\n", want: "-"},
	{name: "bom", in: "\xEF\xBB\xBF{}", want: "-", bad: true},
	{name: "garbage", in: "x{}", want: "-", bad: true},
	{name: "vt is not ws", in: "\v{}", want: "-", bad: true},

	// top-level scalars
	{name: "open quote", in: `"`, want: `""`},
	{name: "open string", in: `"ab`, want: `"ab"`},
	{name: "string", in: `"ab"`, want: `"ab"`},
	{name: "string ws", in: " \"ab\" \n", want: `"ab"`},
	{name: "string then junk", in: `"ab"x`, want: `"ab"`, bad: true},
	{name: "two values", in: `"a" "b"`, want: `"a"`, bad: true},
	{name: "number at end", in: `12`, want: `-`},
	{name: "number ws", in: `12 `, want: `12`},
	{name: "number then junk", in: `12x`, want: `-`, bad: true},
	{name: "number then comma top", in: `12,`, want: `-`, bad: true},
	{name: "minus", in: `-`, want: `-`},
	{name: "neg zero", in: "-0\t", want: `-0`},
	{name: "literal unfinished", in: `tru`, want: `-`},
	{name: "literal", in: `true`, want: `true`},
	{name: "literal ws", in: `null `, want: `null`},
	{name: "literal false", in: `false`, want: `false`},
	{name: "literal wrong", in: `trux`, want: `-`, bad: true},
	{name: "literal caps", in: `True`, want: `-`, bad: true},
	{name: "literal then more", in: `truee`, want: `true`, bad: true},

	// containers and members
	{name: "open obj", in: `{`, want: `{}`},
	{name: "open arr", in: `[`, want: `[]`},
	{name: "name unfinished", in: `{"a`, want: `{}`},
	{name: "name done", in: `{"a"`, want: `{}`},
	{name: "colon", in: `{"a":`, want: `{}`},
	{name: "colon ws", in: `{"a": `, want: `{}`},
	{name: "number member unfinished", in: `{"a": 1`, want: `{}`},
	{name: "number member comma", in: `{"a": 1,`, want: `{"a":1}`},
	{name: "number member close", in: `{"a": 1 }`, want: `{"a":1}`},
	{name: "string member open", in: `{"a":"`, want: `{"a":""}`},
	{name: "string member", in: `{"a":"x`, want: `{"a":"x"}`},
	{name: "dangling comma obj", in: `{"a":"x",`, want: `{"a":"x"}`},
	{name: "second name", in: `{"a":"x","b`, want: `{"a":"x"}`},
	{name: "second literal", in: `{"a":"x","b":tr`, want: `{"a":"x"}`},
	{name: "second literal done", in: `{"a":"x","b":true`, want: `{"a":"x","b":true}`},
	{name: "arr open value", in: `{"a":[`, want: `{"a":[]}`},
	{name: "obj open value", in: `{"a":{`, want: `{"a":{}}`},
	{name: "arr numbers", in: `[1,2`, want: `[1]`},
	{name: "arr dangling", in: `[1,2,`, want: `[1,2]`},
	{name: "arr done", in: `[1,2]`, want: `[1,2]`},
	{name: "arr trailing comma", in: `[1,]`, want: `[1]`, bad: true},
	{name: "obj trailing comma", in: `{"a":1,}`, want: `{"a":1}`, bad: true},
	{name: "arr leading comma", in: `[,`, want: `[]`, bad: true},
	{name: "obj leading comma", in: `{,`, want: `{}`, bad: true},
	{name: "obj non-string name", in: `{a:1}`, want: `{}`, bad: true},
	{name: "obj missing colon", in: `{"a" 1}`, want: `{}`, bad: true},
	{name: "obj double colon", in: `{"a"::1}`, want: `{}`, bad: true},
	{name: "mismatched closer", in: `{"a":1]`, want: `{}`, bad: true},
	{name: "mismatched closer arr", in: `[1}`, want: `[]`, bad: true},
	{name: "missing comma", in: `[1 2]`, want: `[1]`, bad: true},
	{name: "nested open", in: `[[[`, want: `[[[]]]`},
	{name: "nested mixed", in: `{"a":[{"b":[`, want: `{"a":[{"b":[]}]}`},
	{name: "nested string", in: `{"a":[{"b":"c`, want: `{"a":[{"b":"c"}]}`},
	{name: "compaction", in: " { \"a\" : [ 1 , \"x y\" , { } , [ ] ] } ", want: `{"a":[1,"x y",{},[]]}`},
	{name: "after top obj", in: `{"a":1}{`, want: `{"a":1}`, bad: true},
	{name: "after top obj ws junk", in: "{\"a\":1} \n x", want: `{"a":1}`, bad: true},
	{name: "closer at top", in: `]`, want: `-`, bad: true},
	{name: "empty obj then value", in: `{}1`, want: `{}`, bad: true},
	{name: "comment", in: `{"a":1/*`, want: `{}`, bad: true},
	{name: "single quotes", in: `{'a':1}`, want: `{}`, bad: true},
	{name: "empty name", in: `{"":1,"":2}`, want: `{"":1}`, bad: true},

	// duplicate names: the violation is the second name's closing quote
	{name: "dup", in: `{"a":1,"a":2}`, want: `{"a":1}`, bad: true},
	{name: "dup escaped", in: `{"a":1,"\u0061":2}`, want: `{"a":1}`, bad: true},
	{name: "dup escaped first", in: `{"\/":1,"/"`, want: `{"\/":1}`, bad: true},
	{name: "dup surrogate pair", in: `{"😀":1,"\ud83d\ude00":2}`, want: `{"😀":1}`, bad: true},
	{name: "dup prefix only", in: `{"ab":1,"a`, want: `{"ab":1}`},
	{name: "not dup longer", in: `{"a":1,"ab":2}`, want: `{"a":1,"ab":2}`},
	{name: "same name other object", in: `{"a":{"a":1},"b":{"a":2}}`, want: `{"a":{"a":1},"b":{"a":2}}`},
	{name: "dup in nested", in: `[{"a":1,"a"`, want: `[{"a":1}]`, bad: true},
	{name: "case differs", in: `{"a":1,"A":2}`, want: `{"a":1,"A":2}`},

	// strings: escapes kept as written, unfinished pieces left out
	{name: "escapes kept", in: `"a\u0041\n\/`, want: `"a\u0041\n\/"`},
	{name: "backslash pending", in: `"a\`, want: `"a"`},
	{name: "u pending", in: `"a\u`, want: `"a"`},
	{name: "hex pending", in: `"a\u00`, want: `"a"`},
	{name: "hex done", in: `"a\u0041`, want: `"a\u0041"`},
	{name: "upper hex", in: `"\u00E9\u00e9"`, want: `"\u00E9\u00e9"`},
	{name: "high waits", in: `"a\ud83d`, want: `"a"`},
	{name: "high waits bs", in: `"a\ud83d\`, want: `"a"`},
	{name: "high waits u", in: `"a\ud83d\u`, want: `"a"`},
	{name: "high waits digits", in: `"a\ud83d\uDE0`, want: `"a"`},
	{name: "pair", in: `"a\ud83d\ude00`, want: `"a\ud83d\ude00"`},
	{name: "pair then more", in: `"a\ud83d\ude00b`, want: `"a\ud83d\ude00b"`},
	{name: "high then other escape", in: `"a\ud83d\u0041"`, want: `"a"`, bad: true},
	{name: "high then low-range first digit", in: `"a\ud83d\ud`, want: `"a"`},
	{name: "high then high", in: `"a\ud83d\udb`, want: `"a"`, bad: true},
	{name: "high then quote", in: `"a\ud83d"`, want: `"a"`, bad: true},
	{name: "high then char", in: `"a\ud83dx`, want: `"a"`, bad: true},
	{name: "high then n escape", in: `"a\ud83d\n`, want: `"a"`, bad: true},
	{name: "lone low", in: `"a\ude00`, want: `"a"`, bad: true},
	{name: "lone low early", in: `"a\udc`, want: `"a"`, bad: true},
	{name: "d alone is viable", in: `"a\ud`, want: `"a"`},
	{name: "escaped nonchar FDD0", in: `"a\ufdd`, want: `"a"`, bad: true},
	{name: "escaped nonchar FDEx", in: `"a\uFDE`, want: `"a"`, bad: true},
	{name: "FDF is fine", in: `"a\uFDF0"`, want: `"a\uFDF0"`},
	{name: "FDCF is fine", in: `"a\uFDCF"`, want: `"a\uFDCF"`},
	{name: "FFF viable", in: `"a\uFFF`, want: `"a"`},
	{name: "escaped FFFE", in: `"a\uFFFE"`, want: `"a"`, bad: true},
	{name: "escaped FFFF", in: `"a\uffff"`, want: `"a"`, bad: true},
	{name: "escaped FFFD", in: `"a\uFFFD"`, want: `"a\uFFFD"`},
	{name: "pair nonchar 1FFFE", in: `"a\uD83F\uDFFE"`, want: `"a"`, bad: true},
	{name: "pair nonchar 10FFFF", in: `"a\uDBFF\uDFFF"`, want: `"a"`, bad: true},
	{name: "pair DFFD fine", in: `"a\uD83F\uDFFD"`, want: `"a\uD83F\uDFFD"`},
	{name: "pair DFFE other plane fine", in: `"a\uD83E\uDFFE"`, want: `"a\uD83E\uDFFE"`},
	{name: "escaped nul ok", in: `"a\u0000"`, want: `"a\u0000"`},
	{name: "bad escape", in: `"a\x"`, want: `"a"`, bad: true},
	{name: "bad hex", in: `"a\u00g0"`, want: `"a"`, bad: true},
	{name: "raw tab", in: "\"a\tb\"", want: `"a"`, bad: true},
	{name: "raw nul", in: "\"a\x00", want: `"a"`, bad: true},
	{name: "raw del ok", in: "\"a\x7f\"", want: "\"a\x7f\""},

	// UTF-8
	{name: "utf8 partial", in: "\"a\xE2\x82", want: `"a"`},
	{name: "utf8 done", in: "\"a\xE2\x82\xAC", want: `"a€"`},
	{name: "utf8 4 partial", in: "\"a\xF0\x9F\x98", want: `"a"`},
	{name: "utf8 4", in: "\"a\xF0\x9F\x98\x80\"", want: "\"a\U0001F600\""},
	{name: "overlong 2", in: "\"a\xC0\x80", want: `"a"`, bad: true},
	{name: "overlong 3", in: "\"a\xE0\x80\x80", want: `"a"`, bad: true},
	{name: "overlong 4", in: "\"a\xF0\x80\x80\x80", want: `"a"`, bad: true},
	{name: "encoded surrogate", in: "\"a\xED\xA0\x80\"", want: `"a"`, bad: true},
	{name: "ED below surrogates", in: "\"a\xED\x9F\xBF\"", want: "\"a\xED\x9F\xBF\""},
	{name: "past 10FFFF", in: "\"a\xF4\x90\x80\x80", want: `"a"`, bad: true},
	{name: "F5", in: "\"a\xF5", want: `"a"`, bad: true},
	{name: "stray continuation", in: "\"a\x80", want: `"a"`, bad: true},
	{name: "truncated then ascii", in: "\"a\xE2\x82b", want: `"a"`, bad: true},
	{name: "raw nonchar FDD0", in: "\"a\xEF\xB7\x90\"", want: `"a"`, bad: true},
	{name: "raw nonchar FDEF", in: "\"a\xEF\xB7\xAF\"", want: `"a"`, bad: true},
	{name: "raw FDCF ok", in: "\"a\xEF\xB7\x8F\"", want: "\"a\xEF\xB7\x8F\""},
	{name: "raw FFFE", in: "\"a\xEF\xBF\xBE", want: `"a"`, bad: true},
	{name: "raw FFFF", in: "\"a\xEF\xBF\xBF", want: `"a"`, bad: true},
	{name: "raw 1FFFE", in: "\"a\xF0\x9F\xBF\xBE", want: `"a"`, bad: true},
	{name: "raw 10FFFF", in: "\"a\xF4\x8F\xBF\xBF", want: `"a"`, bad: true},
	{name: "raw 10FFFD ok", in: "\"a\xF4\x8F\xBF\xBD\"", want: "\"a\xF4\x8F\xBF\xBD\""},
	{name: "utf8 in name", in: "{\"é\":\"\xE2\x82", want: "{\"é\":\"\"}"},

	// numbers
	{name: "leading zero", in: `[01]`, want: `[]`, bad: true},
	{name: "neg leading zero", in: `[-01]`, want: `[]`, bad: true},
	{name: "zero frac", in: `[0.5]`, want: `[0.5]`},
	{name: "minus only", in: `[-]`, want: `[]`, bad: true},
	{name: "minus letter", in: `[-a`, want: `[]`, bad: true},
	{name: "plus", in: `[+1]`, want: `[]`, bad: true},
	{name: "dot", in: `[1.]`, want: `[]`, bad: true},
	{name: "leading dot", in: `[.5]`, want: `[]`, bad: true},
	{name: "frac", in: `[1.5]`, want: `[1.5]`},
	{name: "double dot", in: `[1.5.]`, want: `[]`, bad: true},
	{name: "e alone", in: `[1e]`, want: `[]`, bad: true},
	{name: "e sign alone", in: `[1e+]`, want: `[]`, bad: true},
	{name: "exp", in: `[1e5,1E+5,1e-5,1.5E05]`, want: `[1e5,1E+5,1e-5,1.5E05]`},
	{name: "hex", in: `[0x1]`, want: `[]`, bad: true},
	{name: "nan", in: `[NaN]`, want: `[]`, bad: true},
	{name: "inf", in: `[-Infinity]`, want: `[]`, bad: true},
	{name: "num then junk", in: `[1x`, want: `[]`, bad: true},
	{name: "num then colon", in: `[1:`, want: `[]`, bad: true},
	{name: "num then quote", in: `[1"`, want: `[]`, bad: true},
	{name: "num unfinished in arr", in: `[1e5`, want: `[]`},
	{name: "1e308", in: `[1e308]`, want: `[1e308]`},
	{name: "1e309 at digit", in: `[1e309]`, want: `[]`, bad: true},
	{name: "1e308 then 1e309", in: `[1e308,1e309`, want: `[1e308]`, bad: true},
	{name: "1e30 viable", in: `[1e30`, want: `[]`},
	{name: "neg overflow", in: `[-1e309]`, want: `[]`, bad: true},
	{name: "1.8e308", in: `[1.8e308]`, want: `[]`, bad: true},
	{name: "1.7e308", in: `[1.7e308]`, want: `[1.7e308]`},
	{name: "max float", in: `[1.7976931348623157e308]`, want: `[1.7976931348623157e308]`},
	{name: "0.1e310", in: `[0.1e309,0.1e310]`, want: `[0.1e309]`, bad: true},
	{name: "exp leading zeros", in: `[1e000000308]`, want: `[1e000000308]`},
	{name: "underflow ok", in: `[1e-999999]`, want: `[1e-999999]`},
	{name: "zero huge exp", in: `[0e999999,0.000e+999999]`, want: `[0e999999,0.000e+999999]`},
	{name: "huge mantissa viable", in: "[" + d400, want: `[]`},
	{name: "huge mantissa ends", in: "[" + d400 + "]", want: `[]`, bad: true},
	{name: "huge mantissa ws", in: "[" + d400 + " ", want: `[]`, bad: true},
	{name: "huge mantissa e", in: "[" + d400 + "e", want: `[]`},
	{name: "huge mantissa e-", in: "[" + d400 + "e-", want: `[]`},
	{name: "huge mantissa e+", in: "[" + d400 + "e+", want: `[]`, bad: true},
	{name: "huge mantissa e0", in: "[" + d400 + "e0", want: `[]`, bad: true},
	{name: "huge mantissa e-1", in: "[" + d400 + "e-1]", want: `[]`, bad: true},
	{name: "huge mantissa e-100", in: "[" + d400 + "e-100]", want: "[" + d400 + "e-100]"},
	{name: "huge mantissa neg e-100", in: "[-" + d400 + "e-100]", want: "[-" + d400 + "e-100]"},
	{name: "long frac", in: "[0." + strings.Repeat("0", 400) + "1e400]", want: "[0." + strings.Repeat("0", 400) + "1e400]"},
	{name: "long frac e+", in: "[0." + strings.Repeat("0", 400) + "1e+800]", want: `[]`, bad: true},
	{name: "long exact digits", in: "[9007199254740993]", want: "[9007199254740993]"},

	// depth
	{name: "depth 1 ok", in: `{"a":1}`, want: `{"a":1}`, depth: 1},
	{name: "depth 1 nested obj", in: `{"a":{`, want: `{}`, depth: 1, bad: true},
	{name: "depth 1 nested arr", in: `{"a":[`, want: `{}`, depth: 1, bad: true},
	{name: "depth 2", in: `[[[`, want: `[[]]`, depth: 2, bad: true},
	{name: "depth 2 closed", in: `[[],[]]`, want: `[[],[]]`, depth: 2},

	// cap
	{name: "cap cuts member", in: `{"a":1}`, want: `{}`, cap: 5},
	{name: "cap cuts number", in: `[1,2,3]`, want: `[1,2]`, cap: 6},
	{name: "cap whole", in: `[1,2,3]`, want: `[1,2,3]`, cap: 7},
	{name: "cap hides violation", in: `[1,2,3]x`, want: `[1,2,3]`, cap: 7},
	{name: "cap mid string", in: `{"a":"hello"}`, want: `{"a":"he"}`, cap: 8},
	{name: "cap mid utf8", in: "\"\xE2\x82\xAC\"", want: `""`, cap: 3},
	{name: "cap one", in: `{}`, want: `{}`, cap: 1},

	// secrets
	{name: "secret string", in: `{"token":"abc","b":1}`, want: `{"token":"[redacted]","b":1}`, secrets: []string{"token"}},
	{name: "secret no value", in: `{"token":`, want: `{}`, secrets: []string{"token"}},
	{name: "secret ws only", in: `{"token": `, want: `{}`, secrets: []string{"token"}},
	{name: "secret open quote", in: `{"token":"`, want: `{"token":"[redacted]"}`, secrets: []string{"token"}},
	{name: "secret number first byte", in: `{"token":1`, want: `{"token":"[redacted]"}`, secrets: []string{"token"}},
	{name: "secret minus", in: `{"token":-`, want: `{"token":"[redacted]"}`, secrets: []string{"token"}},
	{name: "secret literal first byte", in: `{"token":t`, want: `{"token":"[redacted]"}`, secrets: []string{"token"}},
	{name: "secret object", in: `{"token":{"x":[1,"y"`, want: `{"token":"[redacted]"}`, secrets: []string{"token"}},
	{name: "secret object then more", in: `{"token":{"x":[1,"y"]},"b":"c"}`, want: `{"token":"[redacted]","b":"c"}`, secrets: []string{"token"}},
	{name: "secret array", in: `{"token":[1,2`, want: `{"token":"[redacted]"}`, secrets: []string{"token"}},
	{name: "secret number then member", in: `{"token":12,"b":true}`, want: `{"token":"[redacted]","b":true}`, secrets: []string{"token"}},
	{name: "secret escaped name", in: `{"tok\u0065n":"abc"`, want: `{"tok\u0065n":"[redacted]"}`, secrets: []string{"token"}},
	{name: "secret bad first byte", in: `{"token":x`, want: `{}`, bad: true, secrets: []string{"token"}},
	{name: "secret bad second byte", in: `{"token":tx`, want: `{"token":"[redacted]"}`, bad: true, secrets: []string{"token"}},
	{name: "secret overflow", in: `{"token":1e309}`, want: `{"token":"[redacted]"}`, bad: true, secrets: []string{"token"}},
	{name: "secret dup inside", in: `{"token":{"a":1,"a":2},"b":3}`, want: `{"token":"[redacted]"}`, bad: true, secrets: []string{"token"}},
	{name: "secret depth inside", in: `{"token":{"a":{`, want: `{"token":"[redacted]"}`, bad: true, depth: 2, secrets: []string{"token"}},
	{name: "secret dup name", in: `{"token":1,"token":2}`, want: `{"token":"[redacted]"}`, bad: true, secrets: []string{"token"}},
	{name: "secret nested only top", in: `{"x":{"token":"v"},"token":"w"}`, want: `{"x":{"token":"v"},"token":"[redacted]"}`, secrets: []string{"token"}},
	{name: "secret not in top array", in: `[{"token":"v"}]`, want: `[{"token":"v"}]`, secrets: []string{"token"}},
	{name: "secret pointer", in: `{"auth":{"token":"s","u":1},"token":"visible"}`, want: `{"auth":{"token":"[redacted]","u":1},"token":"visible"}`, secrets: []string{"/auth/token"}},
	{name: "secret pointer partial", in: `{"auth":{"token":"s`, want: `{"auth":{"token":"[redacted]"}}`, secrets: []string{"/auth/token"}},
	{name: "secret pointer never through arrays", in: `{"a":[{"b":"x"}],"c":{"a":{"b":"y"}}}`, want: `{"a":[{"b":"x"}],"c":{"a":{"b":"y"}}}`, secrets: []string{"/a/b"}},
	{name: "secret pointer whole parent", in: `{"auth":{"token":"s"}}`, want: `{"auth":"[redacted]"}`, secrets: []string{"/auth/token", "auth"}},
	{name: "secret pointer tilde", in: `{"a/b":{"~":"s","t":"v"}}`, want: `{"a/b":{"~":"[redacted]","t":"v"}}`, secrets: []string{"/a~1b/~0"}},
	{name: "secret pointer parent not object", in: `{"auth":"plain"}`, want: `{"auth":"plain"}`, secrets: []string{"/auth/token"}},
	{name: "secret empty name", in: `{"":"s","a":"v"}`, want: `{"":"[redacted]","a":"v"}`, secrets: []string{"/"}},
	{name: "secret two", in: `{"a":"1","b":"2","c":"3"}`, want: `{"a":"[redacted]","b":"2","c":"[redacted]"}`, secrets: []string{"a", "c"}},
	{name: "secret top string irrelevant", in: `"token"`, want: `"token"`, secrets: []string{"token"}},
}

// parse feeds chunks to a fresh parser built from c.
func (c tc) parser(t testing.TB) *Parser {
	depth, capb := c.depth, c.cap
	if depth == 0 {
		depth = 64
	}
	if capb == 0 {
		capb = 1 << 30
	}
	var paths [][]string
	for _, s := range c.secrets {
		p, err := sealgate.SecretPath(s)
		if err != nil {
			t.Fatalf("%s: secret %q: %v", c.name, s, err)
		}
		paths = append(paths, p)
	}
	return New(depth, capb, paths)
}

func (c tc) run(t testing.TB, chunks ...[]byte) *Parser {
	p := c.parser(t)
	for _, ch := range chunks {
		p.Write(ch)
	}
	return p
}

func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("case name %q used twice", c.name)
		}
		seen[c.name] = true
		p := c.run(t, []byte(c.in))
		if got := p.Snapshot(); got != c.want {
			t.Errorf("%s: %q: got %s, want %s", c.name, c.in, got, c.want)
		}
		if p.violated != c.bad {
			t.Errorf("%s: %q: violation=%v, want %v", c.name, c.in, p.violated, c.bad)
		}
		if got := p.Snapshot(); got != "-" && !strictValid([]byte(got), 64) {
			t.Errorf("%s: snapshot %s is not strict JSON", c.name, got)
		}
	}
}

// TestChunking: every split into 2 and 3 fragments gives the same snapshot
// as one write, and so does every intermediate prefix.
func TestChunking(t *testing.T) {
	for _, c := range cases {
		in := []byte(c.in)
		if len(in) > 120 {
			in = in[:120] // the long-number cases: 2-splits over the whole text below
		}
		prefix := make([]string, len(in)+1)
		for i := range prefix {
			prefix[i] = c.run(t, in[:i]).Snapshot()
		}
		for i := 0; i <= len(in); i++ {
			p := c.parser(t)
			p.Write(in[:i])
			if got := p.Snapshot(); got != prefix[i] {
				t.Fatalf("%s: prefix %d: %s after one write vs %s", c.name, i, got, prefix[i])
			}
			for j := i; j <= len(in); j++ {
				q := c.parser(t)
				q.Write(in[:i])
				q.Write(in[i:j])
				if got := q.Snapshot(); got != prefix[j] {
					t.Fatalf("%s: split %d,%d: got %s, want %s", c.name, i, j, got, prefix[j])
				}
				q.Write(in[j:])
				if got := q.Snapshot(); got != prefix[len(in)] {
					t.Fatalf("%s: split %d,%d,%d: got %s, want %s", c.name, i, j, len(in), got, prefix[len(in)])
				}
			}
		}
		if len(in) < len(c.in) {
			whole := c.run(t, []byte(c.in)).Snapshot()
			for i := 0; i <= len(c.in); i++ {
				if got := c.run(t, []byte(c.in[:i]), []byte(c.in[i:])).Snapshot(); got != whole {
					t.Fatalf("%s: split %d: got %s, want %s", c.name, i, got, whole)
				}
			}
		}
		// byte by byte
		p := c.parser(t)
		for i := 0; i < len(c.in); i++ {
			p.Write([]byte{c.in[i]})
		}
		if got, want := p.Snapshot(), c.run(t, []byte(c.in)).Snapshot(); got != want {
			t.Fatalf("%s: byte by byte: got %s, want %s", c.name, got, want)
		}
	}
}

// TestSecretSplits: a secret value fed in pieces split at every position
// never shows any of its bytes, at any point.
func TestSecretSplits(t *testing.T) {
	type sc struct {
		in, forbid string
		secrets    []string
	}
	for _, s := range []sc{
		{`{"token":"QZXJW\u004bVQ","n":1}`, "QZXJWKV4b", []string{"token"}},
		{"{\"token\":\"Q\xE2\x82\xACZ\\ud83d\\ude00X\",\"n\":1}", "QZX€\\83", []string{"token"}},
		{`{"pin":-987.789e+97,"x":true}`, "789+", []string{"pin"}},
		{`{"pin":987}`, "789", []string{"pin"}},
		{`{"k":false,"y":null}`, "fs", []string{"k"}},
		{`{"k":{"QQ":"ZZ","a":[1,"XX",{"W":true}]},"b":0}`, "QZXW1", []string{"k"}},
		{`{"auth":{"user":"u","token":"QZX"},"token":"vis"}`, "QZX", []string{"/auth/token"}},
		{`{"a":1,"tok\u0065n" : [ "QZX" , 7 ] }`, "QZX7", []string{"token"}},
	} {
		c := tc{name: s.in, secrets: s.secrets}
		in := []byte(s.in)
		check := func(where string, p *Parser) {
			got := p.Snapshot()
			if i := strings.IndexAny(got, s.forbid); i >= 0 {
				t.Fatalf("%s: %s: snapshot %s shows %q", s.in, where, got, got[i])
			}
		}
		for i := 0; i <= len(in); i++ {
			for j := i; j <= len(in); j++ {
				p := c.parser(t)
				p.Write(in[:i])
				check("first", p)
				p.Write(in[i:j])
				check("second", p)
				p.Write(in[j:])
				check("third", p)
				if p.violated {
					t.Fatalf("%s: unexpected violation", s.in)
				}
			}
		}
		if got := c.run(t, in).Snapshot(); !strings.Contains(got, `"[redacted]"`) {
			t.Fatalf("%s: nothing redacted: %s", s.in, got)
		}
	}
}

// TestFrozenAfterViolation: after the first violation no byte changes the
// snapshot.
func TestFrozenAfterViolation(t *testing.T) {
	tails := []string{"", "}", "]", `"`, `"x"`, ` 1 `, `,"b":2}`, "]}]}", "\\u0041\"", "true", "\xE2\x82\xAC", "e5 ", "\"\"\"\"", ":", "{", "["}
	n := 0
	for _, c := range cases {
		if !c.bad {
			continue
		}
		n++
		want := c.run(t, []byte(c.in)).Snapshot()
		for _, tail := range tails {
			p := c.run(t, []byte(c.in))
			p.Write([]byte(tail))
			if got := p.Snapshot(); got != want {
				t.Errorf("%s + %q: got %s, want %s", c.name, tail, got, want)
			}
			for k := 0; k < len(tail); k++ {
				p.Write([]byte{tail[k]})
			}
			if got := p.Snapshot(); got != want {
				t.Errorf("%s + %q twice: got %s, want %s", c.name, tail, got, want)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d violation cases", n)
	}
}

// TestViolationIsExact: the bytes before the violation are viable (a parser
// fed only them reports no violation), so P is the longest viable prefix.
func TestViolationIsExact(t *testing.T) {
	for _, c := range cases {
		if !c.bad {
			continue
		}
		in := []byte(c.in)
		k := -1
		for i := 0; i <= len(in); i++ {
			if c.run(t, in[:i]).violated {
				k = i
				break
			}
		}
		if k < 1 {
			t.Fatalf("%s: no violation found by prefixes", c.name)
		}
		// P = in[:k-1]: the snapshot of the whole input equals P's snapshot.
		if got, want := c.run(t, in).Snapshot(), c.run(t, in[:k-1]).Snapshot(); got != want {
			t.Errorf("%s: whole %s vs P %s", c.name, got, want)
		}
	}
}

func TestCapCheapAfterStop(t *testing.T) {
	p := New(64, 4, nil)
	p.Write([]byte(`[1,2,3]`))
	if got := p.Snapshot(); got != `[1]` {
		t.Fatalf("got %s", got)
	}
	big := make([]byte, 1<<20)
	p.Write(big)
	if got := p.Snapshot(); got != `[1]` || len(p.out) > 8 {
		t.Fatalf("after more bytes: %s (out %d)", got, len(p.out))
	}
	if New(64, 0, nil).Snapshot() != "-" {
		t.Fatal("cap 0")
	}
}

// Objects past smallObject names switch from linear search to a map; nested
// objects' names must not leak into their parents'.
func init() {
	members := func(prefix string, n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + prefix + strconv.Itoa(i) + `":` + strconv.Itoa(i))
		}
		return b.String()
	}
	m20, m16, m17 := members("a", 20), members("a", 16), members("a", 17)
	inner := `{` + members("a", 18) + `}`
	cases = append(cases,
		tc{name: "big obj dup early name", in: `{` + m20 + `,"a3":1}`, want: `{` + m20 + `}`, bad: true},
		tc{name: "big obj dup last name", in: `{` + m20 + `,"a19"`, want: `{` + m20 + `}`, bad: true},
		tc{name: "big obj new name", in: `{` + m20 + `,"b":1}`, want: `{` + m20 + `,"b":1}`},
		tc{name: "obj 16 then dup", in: `{` + m16 + `,"a0"`, want: `{` + m16 + `}`, bad: true},
		tc{name: "obj 17 then dup", in: `{` + m17 + `,"a16"`, want: `{` + m17 + `}`, bad: true},
		tc{name: "obj 17 escaped dup", in: `{` + m17 + `,"\u0061\u0031\u0030"`, want: `{` + m17 + `}`, bad: true},
		tc{name: "nested names isolated", in: `{"x":{"a":1,"b":2},"a":1,"b":2,"y":[{"a":1}],"x"`, want: `{"x":{"a":1,"b":2},"a":1,"b":2,"y":[{"a":1}]}`, bad: true},
		tc{name: "nested big isolated", in: `{"a1":0,"x":` + inner + `,"a2":0,"y":` + inner + `,"a1"`, want: `{"a1":0,"x":` + inner + `,"a2":0,"y":` + inner + `}`, bad: true},
		tc{name: "nested big then parent small", in: `[` + inner + `,{"a1":1,"a1"`, want: `[` + inner + `,{"a1":1}]`, bad: true},
	)
}

// TestClosedObjectsFreeNames: the names of closed objects are not retained.
func TestClosedObjectsFreeNames(t *testing.T) {
	p := New(64, 1<<30, nil)
	p.Write([]byte(`{"top":[`))
	for i := 0; i < 1000; i++ {
		p.Write([]byte(`{"name` + strconv.Itoa(i) + `":{"x":1},"big":{` + strings.Repeat(`"k`+strconv.Itoa(i)+`":0,`, 1) + `"z":1}},`))
	}
	if p.violated || len(p.arena) > 8 || len(p.refs) > 1 {
		t.Fatalf("violated=%v arena=%d refs=%d", p.violated, len(p.arena), len(p.refs))
	}
}

// TestHexViable holds hexViable to its definition: some completion of the
// k hex digits read so far is a valid escape (a first escape: not a low
// surrogate, not a noncharacter; a low half: a low surrogate whose pair
// with high is not a noncharacter).
func TestHexViable(t *testing.T) {
	firstOK := func(r rune) bool { return !(r >= 0xDC00 && r <= 0xDFFF) && !nonchar(r) }
	lowOK := func(high, r rune) bool {
		return r >= 0xDC00 && r <= 0xDFFF && !nonchar(0x10000+(high-0xD800)<<10+(r-0xDC00))
	}
	for k := 1; k <= 4; k++ {
		shift := 4 * (4 - k)
		for v := rune(0); v < 1<<(4*k); v++ {
			some := func(ok func(rune) bool) bool {
				for tail := rune(0); tail < 1<<shift; tail++ {
					if ok(v<<shift | tail) {
						return true
					}
				}
				return false
			}
			if got, want := hexViable(v, k, false, 0), some(firstOK); got != want {
				t.Fatalf("first escape, %d digits %x: hexViable %v, want %v", k, v, got, want)
			}
			for _, high := range []rune{0xD800, 0xD83D, 0xD83F, 0xD87F, 0xDBBF, 0xDBFE, 0xDBFF} {
				if got, want := hexViable(v, k, true, high), some(func(r rune) bool { return lowOK(high, r) }); got != want {
					t.Fatalf("low half after %X, %d digits %x: hexViable %v, want %v", high, k, v, got, want)
				}
			}
		}
	}
}

// TestPlainRun checks the word-at-a-time scan against the byte table: every
// byte value at every offset of a plain run, with runs of every length
// around the eight-byte words, and random words.
func TestPlainRun(t *testing.T) {
	slow := func(b []byte, i int) int {
		for i < len(b) && plainASCII[b[i]] {
			i++
		}
		return i
	}
	for n := 0; n <= 20; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := bytes.Repeat([]byte{'a'}, n)
				b[at] = byte(c)
				for i := 0; i <= n; i++ {
					if got, want := plainRun(b, i), slow(b, i); got != want {
						t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 24)
	for range 200000 {
		for i := range b {
			// mostly plain bytes, some of each kind that is not
			b[i] = "ab \"\\\x1f\x7f\x80\xff~"[r.IntN(10)]
		}
		i := r.IntN(len(b) + 1)
		if got, want := plainRun(b, i), slow(b, i); got != want {
			t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
		}
	}
}

// TestCutPrefix checks cutPrefix against step, the byte-at-a-time state
// machine: for every short byte string c in a value string that starts with
// neither a plain byte nor a whole valid character, cutPrefix(c) must say whether step takes all of
// c and is still inside a character.
func TestCutPrefix(t *testing.T) {
	alphabet := []byte("\\u\"nx0D8CFEd\x1f\xc0\xc1\xc2\xdf\xc3\xa9\xe0\xa0\x80\xbf\xed\x9f\xf0\x90\xf4\x8f\xef\xb7\xff")
	byStep := func(c []byte) bool {
		p := New(64, 1<<20, nil)
		p.Write([]byte(`"`))
		for _, x := range c {
			if !p.step(x) {
				return false
			}
		}
		return p.sState != strNormal
	}
	// wholeByStep is the length of the character c starts with when step
	// takes it whole and valid, else 0.
	wholeByStep := func(c []byte) int {
		p := New(64, 1<<20, nil)
		p.Write([]byte(`"`))
		for n, x := range c {
			if !p.step(x) || p.tok != tokString {
				return 0
			}
			if p.sState == strNormal {
				return n + 1
			}
		}
		return 0
	}
	check := func(c []byte) {
		if len(c) > 0 && !plainASCII[c[0]] {
			if got, want := wholeChar(c), wholeByStep(c); got != want {
				t.Fatalf("wholeChar(%q) = %d, step says %d", c, got, want)
			}
		}
		if len(c) > 0 && (plainASCII[c[0]] || wholeChar(c) != 0) {
			return // the fast path takes these; it asks only about the rest
		}
		if got, want := cutPrefix(c), byStep(c); got != want {
			t.Fatalf("cutPrefix(%q) = %v, step says %v", c, got, want)
		}
	}
	var grow func(c []byte, left int)
	grow = func(c []byte, left int) {
		check(c)
		if left == 0 {
			return
		}
		for _, x := range alphabet {
			grow(append(c, x), left-1)
		}
	}
	grow(nil, 4)
	for _, seed := range []string{`\uD83D`, `\uDBFF`, `\uD800`, `\u00`, `\uFD`, `\uFFF`, `\uD83D\u`, `\uD83D\uDF`, `\uDBFF\uDF`, "\xef\xb7", "\xf4\x8f", "\xf0\x9f\x98"} {
		grow([]byte(seed), 3)
	}
}

// TestCutCharKeptForFinish pins the fast path for a character cut between
// deltas: the parser keeps its start (state strCut) instead of handing it
// to step byte by byte, keeps it while the next deltas are too short to
// finish it, and then finishes it at once. Step would give the same
// snapshots, only slower, so the snapshot tests cannot see this.
func TestCutCharKeptForFinish(t *testing.T) {
	p := New(64, 1<<20, nil)
	for i, w := range []struct {
		in    string
		state uint8
		snap  string
	}{
		{`{"a":"x\u0`, strCut, `{"a":"x"}`},
		{`0`, strCut, `{"a":"x"}`},
		{`e9y`, strNormal, `{"a":"x\u00e9y"}`},
		{"\xe2\x82", strCut, `{"a":"x\u00e9y"}`},
		{"\xac", strNormal, "{\"a\":\"x\\u00e9y\u20ac\"}"},
	} {
		p.Write([]byte(w.in))
		if p.sState != w.state || p.Snapshot() != w.snap {
			t.Fatalf("write %d (%q): state %d, snapshot %s; want state %d, %s", i, w.in, p.sState, p.Snapshot(), w.state, w.snap)
		}
	}
}

// TestEscapeBytes: EscapeBytes flags a word exactly when one of its bytes
// is below 0x20, '"' or '\\', and its lowest flag is on the first such
// byte (plainRun and the seal's escapeAt jump there): every byte value in
// every lane of words filled with other bytes, and random words.
func TestEscapeBytes(t *testing.T) {
	escapes := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }
	check := func(x uint64) {
		first := 8
		for k := 7; k >= 0; k-- {
			if escapes(byte(x >> (8 * k))) {
				first = k
			}
		}
		got := EscapeBytes(x)
		if (got != 0) != (first < 8) || got != 0 && bits.TrailingZeros64(got)/8 != first {
			t.Fatalf("EscapeBytes(%#016x) = %#016x, first escaped byte %d", x, got, first)
		}
	}
	for lane := 0; lane < 8; lane++ {
		for c := 0; c < 256; c++ {
			for _, fill := range []uint64{ones * 'a', ones * 0xff, ones * 0x80, ones * 0x20, ones * 0x5d, ones * 0x1f, ones * '"'} {
				check(fill&^(0xff<<(8*lane)) | uint64(c)<<(8*lane))
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 1 << 20 {
		check(r.Uint64())
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
