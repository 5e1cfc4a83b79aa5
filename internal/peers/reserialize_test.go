package peers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/wire"
)

func TestJSRoundTrip(t *testing.T) {
	for _, c := range []struct{ in, want, diff string }{
		{`{"b":1,"a":[true,false,null,"x"]}`, `{"b":1,"a":[true,false,null,"x"]}`, ""},
		{` { "b" : 1 , "a" : 2 } `, `{"b":1,"a":2}`, ""},
		{`{"b":1,"2":0,"1":0,"01":3}`, `{"1":0,"2":0,"b":1,"01":3}`, "member order"},
		{`{"4294967295":1,"4294967294":2}`, `{"4294967294":2,"4294967295":1}`, "member order"},
		{`{"a":1.0}`, `{"a":1}`, "a number's digits"},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`, "a duplicate name collapsed"},
		{`{"a":"\u0041\/"}`, `{"a":"A/"}`, "a string's escapes"},
		{`{"a":"\uD800x\u001F\u00e9"}`, `{"a":"\ud800x\u001fé"}`, "a string's escapes"},
		{`{"a":"\ud83d\ude00"}`, `{"a":"😀"}`, "a string's escapes"},
		{`[12345678901234567890,1e21,1e-7,0.000001,-0,1e400,123e-20,5e-324,0.1,100,1E2]`,
			`[12345678901234567000,1e+21,1e-7,0.000001,0,null,1.23e-18,5e-324,0.1,100,100]`, "a number's digits"},
	} {
		got, diff, err := jsRoundTrip([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
		joined := strings.Join(diff, "; ")
		if c.diff == "" && joined != "" || !strings.Contains(joined, c.diff) {
			t.Errorf("%s: differences %q, want %q", c.in, joined, c.diff)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1,}`, `[1 2]`, `01`, `1.`, `"a` + "\x01" + `"`, `{"a":1} x`, `tru`, `"\x"`, `"\u12"`} {
		if got, _, err := jsRoundTrip([]byte(bad)); err == nil {
			t.Errorf("%q: JSON.parse throws, got %s", bad, got)
		}
	}
}

// TestJSRoundTripIsNode: the Go rendering of JSON.stringify(JSON.parse(s))
// is byte for byte what Node writes, and both refuse the same inputs.
func TestJSRoundTripIsNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{`{`, `}`, `[`, `]`, `,`, `:`, ` `, `"a"`, `"b"`, `"1"`, `"10"`, `"01"`, `"-1"`, `"4294967295"`, `"\u0041"`, `"\/"`, `"\ud800"`, `"\udc00\ud800"`,
		`"é"`, `"\u00e9"`, `"\t"`, `"\u001f"`, `0`, `-0`, `1.0`, `1e2`, `1E-7`, `123456789012345678901`, `0.1`, `1e400`, `-1e-400`, `2.5e-7`, `true`, `null`, `"\"`}
	var inputs []string
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(12); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	inputs = append(inputs, `{"b":1,"2":0,"1":0}`, `{"a":1,"a":2}`, `[1.5e300,1e21,1e-6,1e-7]`)
	var stdin bytes.Buffer
	for _, in := range inputs {
		line, _ := json.Marshal(in)
		stdin.Write(append(line, '\n'))
	}
	cmd := exec.Command(node, "-e", `
const rl = require('readline').createInterface({ input: process.stdin });
const out = [];
rl.on('line', (l) => { let r; try { r = JSON.stringify(JSON.parse(JSON.parse(l))); } catch { r = null; } out.push(JSON.stringify(r)); });
rl.on('close', () => process.stdout.write(out.join('\n') + '\n'));`)
	cmd.Stdin = &stdin
	res, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(res))
	sc.Buffer(nil, 1<<20)
	parsed := 0
	for i := 0; sc.Scan(); i++ {
		var want *string
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		got, _, err := jsRoundTrip([]byte(inputs[i]))
		switch {
		case want == nil && err == nil:
			t.Errorf("%s: Node's JSON.parse throws, Go gave %s", inputs[i], got)
		case want != nil && err != nil:
			t.Errorf("%s: Node gives %s, Go refused: %v", inputs[i], *want, err)
		case want != nil && string(got) != *want:
			t.Errorf("%s: Node gives %s, Go %s", inputs[i], *want, got)
		case want != nil:
			parsed++
		}
	}
	if parsed < 200 {
		t.Errorf("only %d inputs parsed: the generator makes too little JSON", parsed)
	}
}

// TestReserialize: an object release that is exactly JSON.stringify of the
// parsed bytes is I2-reserialized, naming what changed, and judged with the
// call's own bytes; one that is anything else stays I2.
func TestReserialize(t *testing.T) {
	b := build(t, wire.Anthropic, oneCall(`{"b":1,"1":2.0}`), Fault{})
	m := b.Decode()
	var end int
	for i, ev := range m.Events {
		if ev.Kind == sealgate.Close {
			end = i + 1
		}
	}
	rel := func(args string) Outcome {
		return place(m, b, Record{Releases: []Stamped{{Release: Release{Call: "call_1", Tool: "get_weather", Args: []byte(args), Object: true}, Delivered: len(b.Events), EOF: true}}})
	}
	out := rel(`{"1":2,"b":1}`)
	if out.Releases[0].At != end {
		t.Fatalf("release placed at %d, want the close %d", out.Releases[0].At, end)
	}
	fixed, v := Reserialize(out)
	if v == nil || reduce.ID(v) != "I2-reserialized" || Class(v) != "I2-reserialized" {
		t.Fatalf("got %v, want I2-reserialized", v)
	}
	for _, w := range []string{"member order", "a number's digits", `2.0 became 2`} {
		if !strings.Contains(v.Error(), w) {
			t.Errorf("%v: does not name %s", v, w)
		}
	}
	if err := Judge(fixed); err != nil {
		t.Errorf("with the call's bytes back, the release breaks %v", err)
	}
	if err := Judge(out); err == nil || reduce.ID(err) != "I2-reserialized" {
		t.Errorf("Judge: %v, want I2-reserialized", err)
	}
	asBytes := out
	asBytes.Objects = []bool{false}
	if err := Judge(asBytes); err == nil || reduce.ID(err) != "I2" {
		t.Errorf("the same bytes from an API that keeps bytes: %v, want I2", err)
	}
	if _, v := Reserialize(rel(`{"1":3,"b":1}`)); v != nil {
		t.Errorf("a changed value is not a reserialization: %v", v)
	}
	if _, v := Reserialize(rel(`{"b":1,"1":2.0}`)); v != nil {
		t.Errorf("the bytes themselves: %v", v)
	}
}
