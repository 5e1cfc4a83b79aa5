package model

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

func TestPreviewOf(t *testing.T) {
	type tc struct {
		in      string
		depth   int
		cap     int
		secrets []string
		want    string
	}
	tests := []tc{
		// nothing readable
		{``, 64, 1000, nil, `-`},
		{"  \n", 64, 1000, nil, `-`},
		{`1`, 64, 1000, nil, `-`},
		{`tru`, 64, 1000, nil, `-`},
		{`x`, 64, 1000, nil, `-`},
		// only the opening quote or bracket
		{`{`, 64, 1000, nil, `{}`},
		{`[`, 64, 1000, nil, `[]`},
		{`"`, 64, 1000, nil, `""`},
		// the seed case: a string cut mid-way keeps its prefix
		{`{"path":"notes.md","content":"Topic confirmed.`, 64, 1000, nil, `{"path":"notes.md","content":"Topic confirmed."}`},
		// unfinished names, members without value, dangling commas
		{`{"a`, 64, 1000, nil, `{}`},
		{`{"a"`, 64, 1000, nil, `{}`},
		{`{"a" :`, 64, 1000, nil, `{}`},
		{`{"a": `, 64, 1000, nil, `{}`},
		{`{"a":1,`, 64, 1000, nil, `{"a":1}`},
		{`{"a":1, "b`, 64, 1000, nil, `{"a":1}`},
		{`[1,2,`, 64, 1000, nil, `[1,2]`},
		// numbers are complete only when the next byte is in P
		{`{"a":1`, 64, 1000, nil, `{}`},
		{`{"a":1 `, 64, 1000, nil, `{"a":1}`},
		{`[1,2`, 64, 1000, nil, `[1]`},
		{`[-`, 64, 1000, nil, `[]`},
		{`[1.5e`, 64, 1000, nil, `[]`},
		{`12 `, 64, 1000, nil, `12`},
		{`[1.50E+3]`, 64, 1000, nil, `[1.50E+3]`},
		// literals
		{`{"a":tru`, 64, 1000, nil, `{}`},
		{`{"a":true`, 64, 1000, nil, `{"a":true}`},
		{`[null,fals`, 64, 1000, nil, `[null]`},
		// nesting closed
		{`[1,[2,[3`, 64, 1000, nil, `[1,[2,[]]]`},
		{`{"a":{"b":[{"c":"d`, 64, 1000, nil, `{"a":{"b":[{"c":"d"}]}}`},
		// escapes: kept as written; an unfinished one is left out
		{`{"a":"x\`, 64, 1000, nil, `{"a":"x"}`},
		{`{"a":"x\u00`, 64, 1000, nil, `{"a":"x"}`},
		{`{"a":"x\u0041\n\/`, 64, 1000, nil, `{"a":"x\u0041\n\/"}`},
		{`"x\ud83d`, 64, 1000, nil, `"x"`},
		{`"x\ud83d\`, 64, 1000, nil, `"x"`},
		{`"x\ud83d\ude`, 64, 1000, nil, `"x"`},
		{`"x\ud83d\ude00`, 64, 1000, nil, `"x\ud83d\ude00"`},
		{`"x\ud83d\u0041"`, 64, 1000, nil, `"x"`},
		{`{"\u00`, 64, 1000, nil, `{}`},
		{`{"\u0061":"b"}`, 64, 1000, nil, `{"\u0061":"b"}`},
		// UTF-8 split mid-sequence
		{"\"a\xC3", 64, 1000, nil, `"a"`},
		{"\"a\xC3\xA9", 64, 1000, nil, "\"a\xC3\xA9\""},
		{"\"a\xF0\x9F\x98", 64, 1000, nil, `"a"`},
		// everything from the first violation on is ignored
		{`{"a":1} x`, 64, 1000, nil, `{"a":1}`},
		{`{"a":1,,"b":2}`, 64, 1000, nil, `{"a":1}`},
		{`{"a":01}`, 64, 1000, nil, `{}`},
		{`{"a":[1,0x]}`, 64, 1000, nil, `{"a":[1]}`},
		{`{"a":1,"a":2}`, 64, 1000, nil, `{"a":1}`},
		{`{"a":"x","\u0061":2}`, 64, 1000, nil, `{"a":"x"}`},
		{"{\"a\":\"x\x01y\"}", 64, 1000, nil, `{"a":"x"}`},
		{`["a\uDE00b"]`, 64, 1000, nil, `["a"]`},
		{`["a\uFDD0"]`, 64, 1000, nil, `["a"]`},
		{`["a\ud83d\u0041"]`, 64, 1000, nil, `["a"]`},
		{`[1e309,2]`, 64, 1000, nil, `[]`},
		{`[1e308,2]`, 64, 1000, nil, `[1e308,2]`},
		{`[1` + strings.Repeat("0", 400) + `,2]`, 64, 1000, nil, `[]`},
		{`[1` + strings.Repeat("0", 400) + `e-300,2]`, 64, 1000, nil, `[1` + strings.Repeat("0", 400) + `e-300,2]`},
		{"\xEF\xBB\xBF{}", 64, 1000, nil, `-`},
		// the depth limit
		{`{"a":[1]}`, 1, 1000, nil, `{}`},
		{`{"a":1,"b":[`, 1, 1000, nil, `{"a":1}`},
		{`[[[1]]]`, 2, 1000, nil, `[[]]`},
		// compaction outside strings only
		{"{ \"a\" :\t[ 1 , 2 ] ,\n\"b\" : \"x y\" ", 64, 1000, nil, `{"a":[1,2],"b":"x y"}`},
		// the preview-bytes cap
		{`{"a":"abcdef"}`, 64, 8, nil, `{"a":"ab"}`},
		{`{"a":12345}`, 64, 8, nil, `{}`},
		{`{"a":12345}`, 64, 1, nil, `{}`},
		// secrets: top-level names
		{`{"user":"bob","password":"hun`, 64, 1000, []string{"password"}, `{"user":"bob","password":"[redacted]"}`},
		{`{"password":`, 64, 1000, []string{"password"}, `{}`},
		{`{"password": `, 64, 1000, []string{"password"}, `{}`},
		{`{"password":"`, 64, 1000, []string{"password"}, `{"password":"[redacted]"}`},
		{`{"password":1`, 64, 1000, []string{"password"}, `{"password":"[redacted]"}`},
		{`{"password":t`, 64, 1000, []string{"password"}, `{"password":"[redacted]"}`},
		{`{"password":-`, 64, 1000, []string{"password"}, `{"password":"[redacted]"}`},
		{`{"password":{"x":1}}`, 64, 1000, []string{"password"}, `{"password":"[redacted]"}`},
		{`{"pass\u0077ord":"x"}`, 64, 1000, []string{"password"}, `{"pass\u0077ord":"[redacted]"}`},
		{`{"x":{"password":"y"}}`, 64, 1000, []string{"password"}, `{"x":{"password":"y"}}`},
		{`[{"password":"y"}]`, 64, 1000, []string{"password"}, `[{"password":"y"}]`},
		{`"password"`, 64, 1000, []string{"password"}, `"password"`},
		// secrets: JSON Pointers, never through arrays
		{`{"auth":{"token":"abc","user":"u"},"token":"vis"}`, 64, 1000, []string{"/auth/token"},
			`{"auth":{"token":"[redacted]","user":"u"},"token":"vis"}`},
		{`{"auth":{"tok`, 64, 1000, []string{"/auth/token"}, `{"auth":{}}`},
		{`{"auth":[{"token":"abc"}]}`, 64, 1000, []string{"/auth/token"}, `{"auth":[{"token":"abc"}]}`},
		{`{"auth":{"token":"abc"}}`, 64, 1000, []string{"/auth/token", "auth"}, `{"auth":"[redacted]"}`},
		{`{"a/b":{"~":1}}`, 64, 1000, []string{"/a~1b/~0"}, `{"a/b":{"~":"[redacted]"}}`},
		{`{"a/b":1}`, 64, 1000, []string{"a/b"}, `{"a/b":"[redacted]"}`},
		{`{"":1,"x":2}`, 64, 1000, []string{"/"}, `{"":"[redacted]","x":2}`},
	}
	for _, tc := range tests {
		var secrets [][]string
		for _, s := range tc.secrets {
			p, err := sealgate.SecretPath(s)
			if err != nil {
				t.Fatal(err)
			}
			secrets = append(secrets, p)
		}
		got := PreviewOf([]byte(tc.in), tc.depth, tc.cap, secrets)
		want := sealgate.Preview{Bytes: len(tc.in), Value: tc.want}
		if got != want {
			t.Errorf("PreviewOf(%q, depth %d, cap %d, %v) = %+v, want %+v", tc.in, tc.depth, tc.cap, tc.secrets, got, want)
		}
	}
}

// Every prefix of a valid text previews as valid JSON; a finished text
// followed by a space previews as its compact form; the secret value never
// shows, nor does any piece of it.
func TestPreviewPrefixes(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	secret := [][]string{{"k"}, {"o", "k"}}
	for n := 0; n < 300; n++ {
		text := randomJSON(rng, 3)
		full := PreviewOf([]byte(text+" "), 64, 1<<20, nil)
		if full.Value != string(sealgate.Compact([]byte(text))) {
			t.Fatalf("%s: full preview %s", text, full.Value)
		}
		withSecret := `{"o":{"k":"SECRETVALUE","z":` + text + `},"k":"SECRETVALUE","t":` + text + `}`
		for i := 0; i <= len(withSecret); i++ {
			p := PreviewOf([]byte(withSecret[:i]), 64, 1<<20, secret)
			if p.Value != "-" && !json.Valid([]byte(p.Value)) {
				t.Fatalf("prefix %q: preview %s is not JSON", withSecret[:i], p.Value)
			}
			if strings.Contains(p.Value, "SEC") {
				t.Fatalf("prefix %q: preview %s shows the secret", withSecret[:i], p.Value)
			}
		}
	}
}

// randomJSON writes a random strictly valid text (distinct member names).
func randomJSON(rng *rand.Rand, depth int) string {
	k := rng.Intn(8)
	if depth == 0 && k < 2 {
		k += 2
	}
	switch k {
	case 0:
		var parts []string
		for i := rng.Intn(4); i > 0; i-- {
			parts = append(parts, " "+randomJSON(rng, depth-1))
		}
		return "[" + strings.Join(parts, " ,") + "]"
	case 1:
		var parts []string
		for i := rng.Intn(4); i > 0; i-- {
			parts = append(parts, `"m`+string(rune('a'+i))+`" : `+randomJSON(rng, depth-1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case 2:
		return []string{`"abc"`, `"a\"b\\c\u00e9\ud83d\ude00"`, "\"\xC3\xA9t\xC3\xA9\"", `""`}[rng.Intn(4)]
	case 3:
		return []string{`0`, `-12`, `1.5e-3`, `3E+2`, `0.000`}[rng.Intn(5)]
	default:
		return []string{`true`, `false`, `null`}[rng.Intn(3)]
	}
}
