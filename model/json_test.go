package model

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

const ok = sealgate.Reason("")

func TestCheckJSON(t *testing.T) {
	mal, deep := sealgate.MalformedJSON, sealgate.TooDeep
	tests := []struct {
		in    string
		depth int
		want  sealgate.Reason
		off   int // offset of the violation, -1: don't care
	}{
		{`{}`, 1, ok, 0},
		{` {"a":1} `, 1, ok, 0},
		{"\t\r\n{}\n", 1, ok, 0},
		{`{"a":[]}`, 1, deep, 5},
		{`{"a":[]}`, 2, ok, 0},
		{`[[[]]]`, 2, deep, 2},
		{`[[[]]]`, 3, ok, 0},
		{`"x"`, 1, ok, 0},
		{`1`, 1, ok, 0},
		{`-0.5e-3`, 1, ok, 0},
		{`true`, 1, ok, 0},
		{`null`, 1, ok, 0},
		// first violation decides: malformed before too-deep
		{`{"a":1,,"b":[[[]]]}`, 1, mal, 7},
		{`[1 2,[[[[`, 2, mal, 3},
		// ... and too-deep before malformed
		{`{"a":[[[1,,]]]}`, 2, deep, 6},
		{`[[x`, 1, deep, 1},
		// a bracket where no value may stand is grammar, not depth
		{`{[`, 1, mal, 1},
		{`[1[`, 1, mal, 2},
		{`{"a"[`, 1, mal, 4},
		// grammar
		{``, 5, mal, 0},
		{`   `, 5, mal, 3},
		{"\xEF\xBB\xBF{}", 5, mal, 0},
		{`{}{}`, 5, mal, 2},
		{`{} x`, 5, mal, 3},
		{`{"a":1,}`, 5, mal, 7},
		{`[1,]`, 5, mal, 3},
		{`{'a':1}`, 5, mal, 1},
		{`{"a" 1}`, 5, mal, 5},
		{`{"a":1 /*c*/}`, 5, mal, 7},
		{`{"a":01}`, 5, mal, 6},
		{`{"a":+1}`, 5, mal, 5},
		{`{"a":1.}`, 5, mal, 7},
		{`{"a":.5}`, 5, mal, 5},
		{`{"a":1e}`, 5, mal, 7},
		{`{"a":1e+}`, 5, mal, 8},
		{`{"a":-}`, 5, mal, 6},
		{`{"a":NaN}`, 5, mal, 5},
		{`{"a":Infinity}`, 5, mal, 5},
		{`{"a":0x10}`, 5, mal, 6},
		{`{"a":tru}`, 5, mal, 8},
		{`{"a":nul`, 5, mal, 8},
		{`{"a":"x`, 5, mal, 7},
		{`{"a":1`, 5, mal, 6},
		{`{"a":1 `, 5, mal, 7},
		{`12`, 5, ok, 0},
		{`1e309`, 5, mal, 4},
		{`-1e309`, 5, mal, 5},
		{`1e308`, 5, ok, 0},
		{`1.7976931348623157e308`, 5, ok, 0},
		{`1.7976931348623159e308`, 5, mal, 21},
		{`1e-400`, 5, ok, 0},
		{`0e99999999999999999999`, 5, ok, 0},
		{`0.0000000000001e310`, 5, ok, 0},
		{`[1` + strings.Repeat("0", 400) + `]`, 5, mal, 402},
		{`1` + strings.Repeat("0", 400), 5, mal, 401},
		{`1` + strings.Repeat("0", 400) + `e-400`, 5, ok, 0},
		{`1` + strings.Repeat("0", 400) + `e+1`, 5, mal, 402},
		{`1` + strings.Repeat("0", 400) + `e0`, 5, mal, 402},
		{`[9007199254740993]`, 5, ok, 0},
		// strings
		{`{"a":"x` + "\x01" + `"}`, 5, mal, 7},
		{`"\x"`, 5, mal, 2},
		{`"\u12G4"`, 5, mal, 5},
		{`"\u0061\/\b\f\n\r\t\"\\"`, 5, ok, 0},
		{`"\uD83D\uDE00"`, 5, ok, 0},
		{`"\ud83d\ude00"`, 5, ok, 0},
		{`"\uD83D"`, 5, mal, 7},
		{`"\uD83Dx"`, 5, mal, 7},
		{`"\uD83D\n"`, 5, mal, 8},
		{`"\uD83D\u0041"`, 5, mal, 9},
		{`"\uD83D\uD83D"`, 5, mal, 10},
		{`"\uDE00"`, 5, mal, 4},
		{`"\uDC"`, 5, mal, 4},
		{`"\uFDD0"`, 5, mal, 5},
		{`"\uFDCF"`, 5, ok, 0},
		{`"\uFDF0"`, 5, ok, 0},
		{`"\uFFFE"`, 5, mal, 6},
		{`"\uFFFF"`, 5, mal, 6},
		{`"\uFFFD"`, 5, ok, 0},
		{`"\uD83F\uDFFE"`, 5, mal, 12},
		{`"\uD83F\uDFFD"`, 5, ok, 0},
		{`"\uDBFF\uDFFF"`, 5, mal, 12},
		{`"\uDBFF\uDFFD"`, 5, ok, 0},
		{"\"\xEF\xB7\x90\"", 5, mal, 3},     // U+FDD0
		{"\"\xEF\xBF\xBE\"", 5, mal, 3},     // U+FFFE
		{"\"\xF0\x9F\xBF\xBF\"", 5, mal, 4}, // U+1FFFF
		{"\"\xF4\x8F\xBF\xBE\"", 5, mal, 4}, // U+10FFFE
		{"\"\xF4\x90\x80\x80\"", 5, mal, 2}, // > U+10FFFF
		{"\"\xC0\xAF\"", 5, mal, 1},         // overlong
		{"\"\xE0\x80\xAF\"", 5, mal, 2},     // overlong
		{"\"\xED\xA0\x80\"", 5, mal, 2},     // UTF-8 surrogate
		{"\"\xFF\"", 5, mal, 1},
		{"\"\xC3\"", 5, mal, 2},
		{"\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"", 5, ok, 0},
		// duplicates after unescaping
		{`{"a":1,"a":2}`, 5, mal, 9},
		{`{"a":1,"\u0061":2}`, 5, mal, 14},
		{`{"a":{"a":1},"b":{"a":2}}`, 5, ok, 0},
		{`{"a":1,"a":[[[[[[`, 2, mal, 9},
	}
	for _, tc := range tests {
		got, err := CheckJSON([]byte(tc.in), tc.depth)
		if got != tc.want {
			t.Errorf("CheckJSON(%q, %d) = %q (%v), want %q", tc.in, tc.depth, got, err, tc.want)
			continue
		}
		if (err == nil) != (got == "") {
			t.Errorf("CheckJSON(%q): reason %q with error %v", tc.in, got, err)
		}
		if err != nil && tc.off >= 0 {
			if v := err.(*violation); v.off != tc.off {
				t.Errorf("CheckJSON(%q): violation at %d (%v), want %d", tc.in, v.off, err, tc.off)
			}
		}
	}
}

// The error message names the offset and never quotes the text.
func TestCheckJSONMessageQuotesNothing(t *testing.T) {
	in := `{"password":"hunter2",hunter2}`
	_, err := CheckJSON([]byte(in), 5)
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "offset 22") {
		t.Fatalf("error %v", err)
	}
}

// Every 1-3 byte sequence, and a sample of 4-byte ones, inside a string is
// valid exactly when it is valid UTF-8 with no noncharacter.
func TestStringUTF8(t *testing.T) {
	check := func(seq []byte) {
		if strings.Contains(string(seq), "\\") {
			return // an escape: TestEscapes
		}
		want := utf8.Valid(seq) && !strings.ContainsAny(string(seq), "\"\\")
		if want {
			for _, r := range string(seq) {
				if r < 0x20 || nonchar(r) {
					want = false
				}
			}
		}
		in := append(append([]byte{'"'}, seq...), '"')
		got, _ := CheckJSON(in, 1)
		if (got == "") != want {
			t.Fatalf("%q: got %q, want valid=%v", in, got, want)
		}
	}
	for a := 0; a < 256; a++ {
		check([]byte{byte(a)})
		for b := 0x70; b < 256; b++ {
			check([]byte{byte(a), byte(b)})
		}
	}
	for a := 0xE0; a < 0xF0; a++ {
		for b := 0x70; b < 0xD0; b++ {
			for c := 0x70; c < 0xD0; c++ {
				check([]byte{byte(a), byte(b), byte(c)})
			}
		}
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		check([]byte{byte(0xE8 + rng.Intn(0x18)), byte(0x70 + rng.Intn(0x60)), byte(0x70 + rng.Intn(0x60)), byte(0x70 + rng.Intn(0x60))})
	}
	for _, r := range []rune{0x1FFFE, 0x10FFFF, 0x10FFFD, 0x2FFFF, 0xFFFD} {
		check([]byte(string(r)))
	}
}

// Every \uXXXX escape, alone and after a high surrogate, is valid exactly
// when it spells a scalar value that is no noncharacter.
func TestEscapes(t *testing.T) {
	for u := 0; u < 1<<16; u++ {
		in := []byte(`"\u` + hex4(u) + `"`)
		want := !(u >= 0xD800 && u <= 0xDFFF) && !nonchar(rune(u))
		if got, _ := CheckJSON(in, 1); (got == "") != want {
			t.Fatalf("%s: got %q", in, got)
		}
	}
	for _, hi := range []int{0xD800, 0xD83D, 0xD83F, 0xDBBF, 0xDBFF} {
		for u := 0; u < 1<<16; u++ {
			in := []byte(`"\u` + hex4(hi) + `\u` + hex4(u) + `"`)
			want := u >= 0xDC00 && u <= 0xDFFF && !nonchar(rune(0x10000+(hi-0xD800)<<10+(u-0xDC00)))
			if got, _ := CheckJSON(in, 1); (got == "") != want {
				t.Fatalf("%s: got %q", in, got)
			}
		}
	}
}

func hex4(u int) string {
	const h = "0123456789ABCDEF"
	return string([]byte{h[u>>12&15], h[u>>8&15], h[u>>4&15], h[u&15]})
}

// The violation offset is exact: every prefix before it is viable (a
// partial parse finds no violation) and the prefix that includes it is not.
// Valid texts are also valid for encoding/json.
func TestViolationOffsetIsLongestViablePrefix(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	pieces := []string{`{`, `}`, `[`, `]`, `"`, `"a"`, `"b"`, `:`, `,`, ` `, `1`, `0`, `-`, `.`, `e`, `E`, `+`,
		`9`, `true`, `fal`, `null`, `\`, `\u`, `D83D`, `DE00`, `DC00`, `FDD`, `FFFE`, `00`, "\xC3", "\xA9",
		"\xEF\xBF", "\xBE", `x`, "\t", `e309`, `1e30`, `"k":`, `{"a":`, `[1,`, `"\uD83D\uDE00"`}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(10); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		in := []byte(b.String())
		depth := 1 + rng.Intn(4)
		_, viol := parse(in, depth, true)
		if viol == nil {
			continue
		}
		if _, v := parse(in[:viol.off], depth, true); v != nil {
			t.Fatalf("%q: violation %v, but its prefix has violation %v", in, viol, v)
		}
		if _, v := parse(in[:viol.off+1], depth, true); v == nil || v.off != viol.off {
			t.Fatalf("%q: violation %v not found again in its prefix (%v)", in, viol, v)
		}
		if r, _ := CheckJSON(in, depth); r == "" {
			t.Fatalf("%q: partial violation %v but CheckJSON accepts", in, viol)
		} else if r != viol.reason {
			t.Fatalf("%q: partial violation %v but CheckJSON says %s", in, viol, r)
		}
	}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(12); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		if r, _ := CheckJSON([]byte(b.String()), 64); r == "" && !json.Valid([]byte(b.String())) {
			t.Fatalf("%q: accepted by the model, not by encoding/json", b.String())
		}
	}
}

func TestNumberFloat(t *testing.T) {
	tests := []struct {
		lit    string
		want   float64
		finite bool
	}{
		{"0", 0, true},
		{"-0", 0, true},
		{"1.5", 1.5, true},
		{"1E2", 100, true},
		{"0.000" + strings.Repeat("0", 20000) + "1e19999", 1e-5, true},
		{"1" + strings.Repeat("0", 20000) + "e-20000", 1, true},
		{"9007199254740993", 9007199254740992, true},
		{"1e-400", 0, true},
		{"4.9e-324", 5e-324, true},
		{"2.4703282292062328e-324", 5e-324, true}, // just above half the smallest denormal
		{"2.4703282292062327e-324", 0, true},
		{"1.7976931348623158e308", 1.7976931348623157e308, true},
		{"1.797693134862315808e308", 0, false},
		{"1e400", 0, false},
	}
	for _, tc := range tests {
		f, fin := numberFloat(tc.lit)
		if fin != tc.finite || (fin && f != tc.want) {
			lit := tc.lit
			if len(lit) > 40 {
				lit = lit[:40] + "..."
			}
			t.Errorf("numberFloat(%s) = %v, %v; want %v, %v", lit, f, fin, tc.want, tc.finite)
		}
	}
	// a long mantissa rounds like strconv on its exact digits
	long := "1." + strings.Repeat("0", 900) + "1"
	if f, _ := numberFloat(long); f != 1 {
		t.Errorf("long mantissa: %v", f)
	}
	// exactly halfway between 1 and the next double, then a hair above
	half := "1.00000000000000011102230246251565404236316680908203125"
	if f, _ := numberFloat(half); f != 1 {
		t.Errorf("halfway rounds to even: %v", f)
	}
	if f, _ := numberFloat(half + strings.Repeat("0", 1000) + "1"); f != 1.0000000000000002 {
		t.Errorf("above halfway: %v", f)
	}
}

// strconv misplaces the decimal point of digit strings past 800 digits
// without a dot; the model must not.
func TestNumberFloatLongInteger(t *testing.T) {
	for _, lit := range []string{
		"1" + strings.Repeat("0", 900) + "e-900",
		"1" + strings.Repeat("0", 799) + "1e-800",
		"0.00" + strings.Repeat("0", 900) + "1" + strings.Repeat("0", 900) + "e903",
	} {
		if f, ok := numberFloat(lit); !ok || f != 1 {
			t.Errorf("numberFloat(%.20s...) = %v, %v; want 1", lit, f, ok)
		}
	}
}
