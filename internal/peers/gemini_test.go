package peers

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/wire"
)

// geminiFrags lists the fragments Normalize gives each Gemini call, and
// whether it ended, as "frag|frag|...[end]".
func geminiFrags(t *testing.T, in []sealgate.Event) []string {
	t.Helper()
	n, err := Normalize(wire.Gemini, in)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range n {
		switch e.Kind {
		case sealgate.Begin:
			out = append(out, e.Item+" "+e.Tool+":")
		case sealgate.Delta:
			out[len(out)-1] += string(e.Bytes) + "|"
		case sealgate.End:
			out[len(out)-1] += "end"
		}
	}
	return out
}

// TestGeminiNormalize: calls are re-cut into the pieces the Vertex byte
// rule writes, strings also where an input fragment cut them; what pieces
// cannot write goes whole; what Gemini cannot send goes.
func TestGeminiNormalize(t *testing.T) {
	cut := func(frags ...string) []sealgate.Event { // oneCall without its end: cut at the close
		evs := oneCall(frags...)
		return append(evs[:len(evs)-2], evs[len(evs)-1])
	}
	cases := []struct {
		name string
		in   []sealgate.Event
		want string
	}{
		{"one fragment goes whole, as received", oneCall(`{ "a":1 } `), `0:0 get_weather:{ "a":1 }|end`},
		{"pieces", oneCall(`{"a":[{"b":"xy"}],`, `"c":1}`), `0:0 get_weather:{"a":[{"b":"xy"|}],"c":1|}|end`},
		{"a string cut where its fragment was", oneCall(`{"a":[{"b":"x`, `y"}],"c":true}`), `0:0 get_weather:{"a":[{"b":"x|y"|}],"c":true|}|end`},
		{"rewritten compact, escapes minimal", oneCall(`{ "a" : "\u00e9\/" ,`, ` "n": null }`), `0:0 get_weather:{"a":"é/"|,"n":null|}|end`},
		{"an empty container goes whole", oneCall(`{"a":[],`, `"b":{}}`), `0:0 get_weather:{"a":[],"b":{}}|end`},
		{"no bytes: {}", oneCall(), `0:0 get_weather:{}|end`},
		{"not an object: the call goes", oneCall(`[1]`), ``},
		{"not JSON: the call goes", oneCall(`{"a":`), ``},
		{"a duplicate member: the call goes", oneCall(`{"a":1,"a":2}`), ``},
		{"cut inside a string", cut(`{"city":"Par`), `0:0 get_weather:{"city":"Par|`},
		{"cut inside an array string", cut(`{"a":[1,"x\`), `0:0 get_weather:{"a":[1|,"x|`},
		{"cut before a value", cut(`{"a":1,"b":{"c"`), `0:0 get_weather:{"a":1|`},
		{"cut with nothing written", cut(`{"ci`), `0:0 get_weather:`},
		{"calls one after another", []sealgate.Event{
			sealgate.OpenEvent("r1", "t1"),
			sealgate.BeginEvent("r1", "x", "call_1", "get_weather"),
			sealgate.BeginEvent("r1", "y", "call_2", "get_time"),
			sealgate.DeltaEvent("r1", "y", []byte(`{"tz":"UTC"}`)),
			sealgate.DeltaEvent("r1", "x", []byte(`{"city":"Paris"}`)),
			sealgate.EndEvent("r1", "y"),
			sealgate.EndEvent("r1", "x"),
			sealgate.BeginEvent("r1", "z", "call_3", "get_time"),
			sealgate.EndEvent("r1", "z"),
			sealgate.CloseEvent("r1", sealgate.Complete),
		}, `0:0 get_weather:{"city":"Paris"}|end 0:1 get_time:{}|end`},
	}
	for _, c := range cases {
		if got := strings.Join(geminiFrags(t, c.in), " "); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestGeminiNormalizeCarries: what Normalize gives for Gemini, wire.Encode
// takes and wire.Decode gives back, for generated streams and the corpus,
// and many calls of the corpus go as pieces.
func TestGeminiNormalizeCarries(t *testing.T) {
	var inputs [][]sealgate.Event
	for _, data := range fuzzkit.Seeds(7)[:60] {
		_, evs := gen.FromBytes(data)
		inputs = append(inputs, evs)
	}
	files, err := scn.Files(filepath.Join("..", "..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, s.Events)
	}
	carried, streamed := 0, 0
	for _, evs := range inputs {
		n, err := Normalize(wire.Gemini, evs)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := wire.Encode(wire.Gemini, n)
		if err != nil {
			if strings.Contains(err.Error(), "token") || strings.Contains(err.Error(), "empty") {
				continue // an id that cannot stand as a token: not carried
			}
			t.Errorf("normalized events do not encode: %v\n%v", err, n)
			continue
		}
		carried++
		streamed += bytes.Count(enc, []byte(`"partialArgs"`))
		back, err := wire.Decode(wire.Gemini, bytes.NewReader(enc), wire.Options{})
		if err != nil {
			t.Errorf("%v\n%s", err, enc)
			continue
		}
		if len(back) != len(n) {
			t.Errorf("%d events back for %d:\n%v\n%v", len(back), len(n), n, back)
			continue
		}
		for i := range n {
			n[i].Turn = back[i].Turn
			if !scn.EventsEqual(n[i], back[i]) {
				t.Errorf("event %d: %s back as %s", i+1, n[i], back[i])
				break
			}
		}
	}
	if carried < len(inputs)/2 || streamed < len(files)/3 {
		t.Errorf("Gemini carried %d of %d streams, with %d pieces in all", carried, len(inputs), streamed)
	}

	t.Logf("Gemini carried %d of %d streams (60 generated, %d corpus files), with %d pieces in all", carried, len(inputs), len(files), streamed)
}

// TestGeminiFaults: each fault changes what wire reads of a Gemini body as
// it says; Gemini's terminal is its finish chunk.
func TestGeminiFaults(t *testing.T) {
	last := func(b Body) sealgate.Event { m := b.Decode(); return m.Events[len(m.Events)-1] }
	clean := build(t, wire.Gemini, oneCall(`{"city":"Par`, `is"}`), Fault{})
	if ev := last(clean); ev.Status != sealgate.Complete {
		t.Fatalf("clean body ends %s", ev)
	}
	for _, f := range []Fault{{Kind: DropTerminal}, {Kind: CutAfter, At: 2}, {Kind: CutInside, At: 3}, {Kind: ResetInside, At: 3}} {
		if ev := last(f.Apply(clean)); ev.Status != sealgate.Disconnected {
			t.Errorf("%v: ends %s, want close disconnected", f, ev)
		}
	}
	if ev := last(Fault{Kind: ErrorAfter, At: 2}.Apply(clean)); ev.Status != sealgate.Failed {
		t.Errorf("error-after: ends %s, want close failed", ev)
	}
}
