package gate

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// sealTextSeeds are valid and invalid texts of every kind, for the tests
// below and as FuzzSealText's seeds.
var sealTextSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e-3`, `1E400`, `1e-400`, `-0`, `true`, `false`, `null`,
	`{"a":[1,"x\u00e9\ud83d\ude00\n\"\\\/",{"b":null,"c":[]}],"d":{},"e":9007199254740993}`,
	" {\n\"k\" : [ true , false ] ,\"\\u0061\":\"v\"} ",
	`[[[[["deep"]]]],{"":""}]`,
	`{"\ufdd0":1}`, `"\uffff"`, "\"\xef\xbf\xbe\"", "\"\xf0\x9f\xbf\xbf\"", `{"a":1,"a":2}`,
	`{"a":1}x`, `{"a":1} {}`, `{"a":`, `[1,]`, `"\ud800"`, "\"\xff\"", `1e999`,
	`{"\ud83d\ude00":1,"\uffee":2,"b":3,"":4}`, `[1e21,1e20,1.5e-7,0.000001,123456789012345678901234]`,
	`"\u007f\u001f\b\f\n\r\t\u2028"`,
	// escapes after and between runs of eight or more plain bytes
	`{"s":"abcdefgh\n\"ijklmnopq\\r\u0001stuvwxyz0123\t"}`,
}

func TestSealTextSeeds(t *testing.T) {
	for _, s := range sealTextSeeds {
		for _, depth := range []int{1, 2, 3, 64} {
			checkSealText(t, []byte(s), depth)
		}
	}
}

// TestSealTextJSONTestSuite runs the JSONTestSuite parsing corpus, read in
// place (SEALGATE_JSONTESTSUITE, default ../../shared/jsontestsuite/test_parsing).
func TestSealTextJSONTestSuite(t *testing.T) {
	dir := os.Getenv("SEALGATE_JSONTESTSUITE")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "jsontestsuite", "test_parsing")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("JSONTestSuite not found at %s (set SEALGATE_JSONTESTSUITE): %v", dir, err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		checkSealText(t, raw, 64)
	}
}

func TestCanonicalForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{ "b" : 1, "a" : "\u0061\u00e9\/" }`, `{"a":"aé/","b":1}`},
		{`1.0`, `1`},
		{`-0`, `0`},
		{`9007199254740993`, `9007199254740992`},
		{`1e-400`, `0`},
		{`1E2`, `100`},
		{`1e21`, `1e+21`},
		{`1e20`, `100000000000000000000`},
		{`-1.5e-7`, `-1.5e-7`},
		{`0.000001`, `0.000001`},
		{`123.456e-2`, `1.23456`},
		{`"\u007f\u001f"`, "\"\x7f\\u001f\""},
		// the word-at-a-time skip stops exactly at each byte to escape
		{`"abcdefgh\u000a\u0022ijklmnopq\u005c\u0001stuvwxyz\/0123\u0009"`, `"abcdefgh\n\"ijklmnopq\\\u0001stuvwxyz/0123\t"`},
		{`[1,{"z":[],"y":null}]`, `[1,{"y":null,"z":[]}]`},
		// U+FFEE sorts after U+1F600 in UTF-16 (its high surrogate is D83D).
		{`{"\uffee":1,"\ud83d\ude00":2}`, "{\"\U0001F600\":2,\"\uffee\":1}"},
	}
	for _, c := range cases {
		doc, _, ok := sealText([]byte(c.in), 64)
		if !ok {
			t.Fatalf("%s: not sealed", c.in)
		}
		got, err := appendCanonical(nil, doc)
		if err != nil || string(got) != c.want {
			t.Errorf("canonical(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := appendCanonical(nil, struct{}{}); err == nil {
		t.Error("appendCanonical accepted a value sealText never produces")
	}
}

// FuzzSealText: the seal's one decoding pass agrees with ValidJSON on
// every text at every depth limit, decodes as encoding/json does, and
// canonicalizes as jsontext does.
func FuzzSealText(f *testing.F) {
	fuzzkit.AddSeeds(f, sealTextFuzzSeeds())
	f.Fuzz(func(t *testing.T, raw []byte, depth uint8) { fuzzSealText(t, raw, depth) })
}

func sealTextFuzzSeeds() [][]any {
	var out [][]any
	for _, s := range sealTextSeeds {
		out = append(out, []any{[]byte(s), uint8(3)})
	}
	return out
}

// TestWriteSeedCorpus writes this package's fuzz seeds for libFuzzer
// (fuzzkit.SeedCorpusEnv).
func TestWriteSeedCorpus(t *testing.T) {
	fuzzkit.WriteSeedCorpus(t, map[string][][]any{"FuzzSealText": sealTextFuzzSeeds()})
}

// TestHasNoncharacterEveryRune holds the seal's noncharacter search (with
// its byte-pattern shortcut) to isNoncharacter for every scalar value, alone
// and between other text.
func TestHasNoncharacterEveryRune(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		c := string(r)
		want := isNoncharacter(r)
		if hasNoncharacter(c) != want || hasNoncharacter("é"+c+"\U0001F600") != want {
			t.Fatalf("U+%04X: hasNoncharacter = %v, want %v", r, !want, want)
		}
	}
}

// TestEscapeAt holds the word-at-a-time search equal to a byte-by-byte scan
// of canonicalEscape: every byte value at every offset of plain strings
// around the eight-byte words, from every start, and random strings.
func TestEscapeAt(t *testing.T) {
	slow := func(s string, i int) int {
		for i < len(s) && !canonicalEscape[s[i]] {
			i++
		}
		return i
	}
	check := func(s string, i int) {
		if got, want := escapeAt(s, i), slow(s, i); got != want {
			t.Fatalf("escapeAt(%q, %d) = %d, want %d", s, i, got, want)
		}
	}
	for n := 0; n <= 20; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("a", n))
				b[at] = byte(c)
				for i := 0; i <= n; i++ {
					check(string(b), i)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 24)
	for range 200000 {
		for i := range b {
			b[i] = "ab \"\\\x1f\x7f\x80\xff\n"[r.IntN(10)]
		}
		check(string(b), r.IntN(len(b)+1))
	}
}

// BenchmarkUnquote decodes the file text of the preview benchmarks (1 MiB,
// an escape about every 12 bytes): the part of the seal that turns the
// content string into the Go string the schema validates.
func BenchmarkUnquote(b *testing.B) {
	raw := benchArgs(1 << 20)
	lit := raw[bytes.Index(raw, []byte(`"content":`))+len(`"content":`) : len(raw)-1]
	b.SetBytes(int64(len(lit)))
	start := cpuNanos()
	for b.Loop() {
		if s := unquote(lit); len(s) >= len(lit) {
			b.Fatalf("decoded %d bytes from %d", len(s), len(lit))
		}
	}
	reportCPU(b, start)
}

// backslashAt against bytes.IndexByte: every byte value at every offset of
// words up to 20 bytes long, behind a backslash or not, and random words
// over the bytes that sit next to '\\' in the bit tricks (0xDC is '\\' with
// the top bit set).
func TestBackslashAt(t *testing.T) {
	check := func(s []byte) {
		want := bytes.IndexByte(s, '\\')
		if want < 0 {
			want = len(s)
		}
		if got := backslashAt(s); got != want {
			t.Fatalf("backslashAt(%q) = %d, want %d", s, got, want)
		}
	}
	for n := 0; n <= 20; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := bytes.Repeat([]byte("a"), n)
				b[at] = byte(c)
				check(b)
				if at+1 < n {
					b[at+1] = '\\'
					check(b)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 24)
	for range 200000 {
		for i := range b {
			b[i] = "a\\\xdc\x5b\x5d\x00\x80\xff"[r.IntN(8)]
		}
		check(b)
	}
}
