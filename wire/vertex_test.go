package wire

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// vChunk is a Gemini chunk whose one part is functionCall fc.
func vChunk(fc string) string {
	return `data: {"candidates":[{"content":{"parts":[{"functionCall":` + fc + `}]}}],"responseId":"g"}` + "\n\n"
}

// vFinish is a chunk that finishes candidate 0 with reason.
func vFinish(reason string) string {
	return `data: {"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"` + reason + `"}],"responseId":"g"}` + "\n\n"
}

func vPieces(cont bool, pieces ...string) string {
	fc := `{"partialArgs":[` + strings.Join(pieces, ",") + `]`
	if cont {
		fc += `,"willContinue":true`
	}
	return vChunk(fc + "}")
}

const vStart = `{"name":"f","willContinue":true}`

// argsOf is the concatenation of the deltas of item 0:0, and whether it ended.
func argsOf(t *testing.T, body string) (string, bool, error) {
	t.Helper()
	evs, err := decodeString(t, Gemini, body)
	var b strings.Builder
	ended := false
	for _, e := range evs {
		if e.Item != "0:0" {
			continue
		}
		switch e.Kind.String() {
		case "delta":
			b.Write(e.Bytes)
		case "end":
			ended = true
		}
	}
	return b.String(), ended, err
}

// TestVertexByteRule: the examples of the byte rule (package doc and
// docs/wire-vertex.md), each a body and the one text it builds.
func TestVertexByteRule(t *testing.T) {
	cases := []struct {
		name, body, want string
		ended            bool
	}{
		{"string in two pieces, terminal {}",
			vChunk(vStart) + vPieces(true, `{"jsonPath":"$.location","stringValue":"Bos","willContinue":true}`) +
				vPieces(true, `{"jsonPath":"$.location","stringValue":"ton"}`) + vChunk(`{}`),
			`{"location":"Boston"}`, true},
		{"nested objects and an array of objects, arrival order",
			vChunk(vStart) + vPieces(true, `{"jsonPath":"$.z.b","numberValue":1}`, `{"jsonPath":"$.z.a","boolValue":false}`,
				`{"jsonPath":"$.ops[0].k","nullValue":"NULL_VALUE"}`, `{"jsonPath":"$.ops[1].k","nullValue":null}`,
				`{"jsonPath":"$.ops[2]","numberValue":-2.5e3}`, `{"jsonPath":"$.a","boolValue":true}`) + vChunk(`{}`),
			`{"z":{"b":1,"a":false},"ops":[{"k":null},{"k":null},-2.5e3],"a":true}`, true},
		{"array of arrays, bracket names, escapes",
			vChunk(vStart) + vPieces(true, `{"jsonPath":"$['a b'][0][0]","stringValue":"x\"\\\n\u00e9"}`,
				`{"jsonPath":"$[\"a b\"][0][1]","stringValue":""}`, `{"jsonPath":"$['a b'][1][0]","numberValue":0}`) + vChunk(`{}`),
			`{"a b":[["x\"\\\né",""],[0]]}`, true},
		{"no piece: {}", vChunk(vStart) + vChunk(`{}`), `{}`, true},
		{"last chunk without willContinue, then the finish", vChunk(vStart) +
			vPieces(false, `{"jsonPath":"$.n","numberValue":3}`) + vFinish("STOP"), `{"n":3}`, true},
		{"last chunk, then EOF: no end", vChunk(vStart) + vPieces(false, `{"jsonPath":"$.n","numberValue":3}`), `{"n":3`, false},
		{"willContinue chunk, then the finish: no end", vChunk(vStart) +
			vPieces(true, `{"jsonPath":"$.n","numberValue":3}`) + vFinish("STOP"), `{"n":3`, false},
		{"cut mid-string", vChunk(vStart) + vPieces(true, `{"jsonPath":"$.s","stringValue":"ab","willContinue":true}`), `{"s":"ab`, false},
		{"a number that is no finite double: as received", vChunk(vStart) +
			vPieces(true, `{"jsonPath":"$.n","numberValue":1e400}`, `{"jsonPath":"$.m","numberValue":"NaN"}`, `{"jsonPath":"$.i","numberValue":"-Infinity"}`) + vChunk(`{}`),
			`{"n":1e400,"m":NaN,"i":-Infinity}`, true},
	}
	for _, c := range cases {
		got, ended, err := argsOf(t, c.body)
		if err != nil || got != c.want || ended != c.ended {
			t.Errorf("%s: built %q ended=%v err=%v, want %q ended=%v", c.name, got, ended, err, c.want, c.ended)
		}
	}
}

// TestVertexProtocolErrors: each named protocol error fails the attempt.
func TestVertexProtocolErrors(t *testing.T) {
	p := func(path, value string) string { return `{"jsonPath":"` + path + `",` + value + `}` }
	cases := []struct {
		name, body string
		want       error
	}{
		{"back into a closed member", vChunk(vStart) + vPieces(true, p("$.a.x", `"numberValue":1`), p("$.b", `"numberValue":1`), p("$.a.y", `"numberValue":1`)), ErrClosedMember},
		{"same member twice", vChunk(vStart) + vPieces(true, p("$.a", `"stringValue":"x"`), p("$.a", `"stringValue":"y"`)), ErrClosedMember},
		{"back into a closed element", vChunk(vStart) + vPieces(true, p("$.a[0]", `"numberValue":1`), p("$.a[1]", `"numberValue":1`), p("$.a[0]", `"numberValue":1`)), ErrClosedMember},
		{"index gap", vChunk(vStart) + vPieces(true, p("$.a[0]", `"numberValue":1`), p("$.a[2]", `"numberValue":1`)), ErrIndexOrder},
		{"array not from 0", vChunk(vStart) + vPieces(true, p("$.a[1]", `"numberValue":1`)), ErrIndexOrder},
		{"pieces, no call", vPieces(true, p("$.a", `"numberValue":1`)), ErrNoOpenCall},
		{"terminal {}, no call", vChunk(`{}`), ErrNoOpenCall},
		{"a chunk after the last one", vChunk(vStart) + vPieces(false, p("$.a", `"numberValue":1`)) + vPieces(true, p("$.b", `"numberValue":1`)), ErrNoOpenCall},
		{"string then number", vChunk(vStart) + vPieces(true, p("$.a", `"stringValue":"x","willContinue":true`), p("$.a", `"numberValue":1`)), ErrTypeChange},
		{"object then array", vChunk(vStart) + vPieces(true, p("$.a.b", `"numberValue":1`), p("$.a[0]", `"numberValue":1`)), ErrTypeChange},
		{"scalar then members", vChunk(vStart) + vPieces(true, p("$.a", `"numberValue":1`), p("$.a.b", `"numberValue":1`)), ErrTypeChange},
		{"object then scalar", vChunk(vStart) + vPieces(true, p("$.a.b", `"numberValue":1`), p("$.a", `"numberValue":1`)), ErrTypeChange},
		{"another path while a string continues", vChunk(vStart) + vPieces(true, p("$.a", `"stringValue":"x","willContinue":true`), p("$.b", `"numberValue":1`)), ErrOpenString},
		{"the end while a string continues", vChunk(vStart) + vPieces(true, p("$.a", `"stringValue":"x","willContinue":true`)) + vChunk(`{}`), ErrOpenString},
		{"a new call before the end", vChunk(vStart) + vPieces(false, p("$.a", `"numberValue":1`)) + vChunk(vStart), ErrCallOpen},
		{"a whole call before the end", vChunk(vStart) + vChunk(`{"name":"g","args":{}}`), ErrCallOpen},
		{"two values", vChunk(vStart) + vPieces(true, p("$.a", `"numberValue":1,"boolValue":true`)), ErrBadPiece},
		{"no value", vChunk(vStart) + vPieces(true, `{"jsonPath":"$.a"}`), ErrBadPiece},
		{"willContinue on a number", vChunk(vStart) + vPieces(true, p("$.a", `"numberValue":1,"willContinue":true`)), ErrBadPiece},
		{"negative index", vChunk(vStart) + vPieces(true, p("$.a[-1]", `"numberValue":1`)), ErrBadPiece},
		{"the root", vChunk(vStart) + vPieces(true, p("$", `"numberValue":1`)), ErrBadPiece},
		{"a wildcard", vChunk(vStart) + vPieces(true, p("$.a[*]", `"numberValue":1`)), ErrBadPiece},
		{"a number as a string", vChunk(vStart) + vPieces(true, p("$.a", `"numberValue":"1"`)), ErrBadPiece},
		{"args with partialArgs", vChunk(`{"name":"f","args":{},"willContinue":true}`), ErrBadPiece},
	}
	for _, c := range cases {
		evs, err := decodeString(t, Gemini, c.body)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
			continue
		}
		if last := evs[len(evs)-1]; last.Kind.String() != "close" || last.Status.String() != "failed" {
			t.Errorf("%s: last event %s, want close failed", c.name, last)
		}
	}
}

// TestVertexPaths: the jsonPath forms read, and their canonical writing.
func TestVertexPaths(t *testing.T) {
	for in, want := range map[string]string{
		"$.a":                     "$.a",
		"$['a']":                  "$.a",
		`$["a"]`:                  "$.a",
		"$[ 'a b' ][ 10 ]._x":     "$['a b'][10]._x",
		`$['it\'s']`:              `$['it\'s']`,
		`$["\u00e9\ud83c\udf89"]`: "$.é🎉",
		"$.é":                     "$.é",
	} {
		p, err := parsePath(in)
		if err != nil || pathString(p) != want {
			t.Errorf("%s: %s %v, want %s", in, pathString(p), err, want)
		}
	}
	for _, in := range []string{"", "a", "$", "$.", "$.1a", "$[01]", "$['a'", `$['\ud800']`, "$..a", "$[0,1]", "$.a b", `$["a\'"]`} {
		if p, err := parsePath(in); !errors.Is(err, ErrBadPiece) {
			t.Errorf("%q: %v %v, want ErrBadPiece", in, p, err)
		}
	}
}

// TestVertexDocExample: the example of the package doc, delta by delta.
func TestVertexDocExample(t *testing.T) {
	body := vChunk(vStart) +
		vPieces(true, `{"jsonPath":"$.ops[0].k","stringValue":"a","willContinue":true}`, `{"jsonPath":"$.ops[0].k","stringValue":""}`) +
		vPieces(true, `{"jsonPath":"$.ops[1].k","numberValue":2}`, `{"jsonPath":"$.n","boolValue":true}`) + vChunk(`{}`)
	evs, err := decodeString(t, Gemini, body)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.String())
	}
	want := []string{"open g turn=t1", "begin g item=0:0 call=pos:0:0 tool=f",
		`delta g item=0:0 "{\"ops\":[{\"k\":\"a"`, `delta g item=0:0 "\""`, `delta g item=0:0 "},{\"k\":2"`,
		`delta g item=0:0 "}],\"n\":true"`, `delta g item=0:0 "}"`, "end g item=0:0", "close g status=disconnected"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// asArray writes JSONL lines as the JSON array stream Vertex serves
// without alt=sse: pretty-printed elements, ",\r\n" between them.
func asArray(lines []string, closed bool) string {
	var b strings.Builder
	b.WriteString("[")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\n,\r\n")
		}
		b.WriteString(strings.Replace(strings.TrimSpace(l), `{"candidates":`, "{\n  \"candidates\": ", 1))
	}
	if closed {
		b.WriteString("\n]\n")
	}
	return b.String()
}

// TestVertexJSONArray: the captures read as a JSON array stream give the
// events of their JSONL reading; a body without its ] was cut.
func TestVertexJSONArray(t *testing.T) {
	dir, ok := fixturesDir()
	if !ok {
		t.Skipf("vendor fixtures not found at %s", dir)
	}
	for _, name := range []string{"vertex-partial-args-two-sequential-calls", "vertex-partial-args-no-terminal-functioncall", "vertex-no-args-call-then-three-partial-calls"} {
		lines := jsonlBlocks(t, dir+"/gemini/"+name+".jsonl")
		want, err := Decode(Gemini, strings.NewReader(strings.Join(lines, "")), Options{Framing: JSONL})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(Gemini, strings.NewReader(asArray(lines, true)), Options{Framing: JSONArray})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := sameEvents(want, got); d != "" {
			t.Errorf("%s as an array: %s", name, d)
		}
		// No ]: the same events up to the close, which is disconnected.
		got, err = Decode(Gemini, strings.NewReader(asArray(lines, false)), Options{Framing: JSONArray})
		if err != nil || got[len(got)-1].Status.String() != "disconnected" || len(got) != len(want) {
			t.Errorf("%s without ]: %v, last %s", name, err, got[len(got)-1])
		}
		// Cut inside the second element: open, then close disconnected.
		body := asArray(lines, true)
		cutAt := strings.Index(body, "\n,\r\n") + 20
		got, err = Decode(Gemini, strings.NewReader(body[:cutAt]), Options{Framing: JSONArray})
		if err != nil || got[len(got)-1].Status.String() != "disconnected" {
			t.Errorf("%s cut: %v %v", name, err, got)
		}
	}
	for body, msg := range map[string]string{
		`{"candidates":[]}`:                       "starts with '['",
		`[{"responseId":"a"} {}]`:                 "',' or ']' was expected",
		`[{"responseId":"a"},1]`:                  "is an object",
		`[{"responseId":"a"}] x`:                  "after the stream's closing",
		`[{"responseId":"a"},{"x"` + "\n" + `:}]`: "line 1 (byte 20)",
	} {
		_, err := Decode(Gemini, strings.NewReader(body), Options{Framing: JSONArray})
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error containing %q", body, err, msg)
		}
	}
}

// FuzzWireGeminiArray: arbitrary bytes read as a JSON array stream
// (geminiArrayRun).
func FuzzWireGeminiArray(f *testing.F) {
	fuzzkit.AddSeeds(f, geminiArraySeeds())
	f.Fuzz(func(t *testing.T, data []byte) { geminiArrayRun(t, data) })
}

// geminiArraySeeds: the Vertex captures, each as one JSON array, and a
// streamed call's start.
func geminiArraySeeds() [][]any {
	var out [][]any
	if dir, ok := fixturesDir(); ok {
		for _, name := range []string{"vertex-partial-args-two-sequential-calls", "vertex-partial-args-no-terminal-functioncall", "vertex-no-args-call-then-three-partial-calls"} {
			if b, err := os.ReadFile(dir + "/gemini/" + name + ".jsonl"); err == nil {
				out = append(out, []any{[]byte(asArray(strings.Split(strings.TrimSpace(string(b)), "\n"), true))})
			}
		}
	}
	return append(out, []any{[]byte(`[{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}],"responseId":"g"}]`)})
}
