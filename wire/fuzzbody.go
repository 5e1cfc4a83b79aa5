package wire

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// The body of FuzzWireRoundTrip and the generator it needs, in plain code
// so that both go test -fuzz (roundtrip_test.go) and the libFuzzer harness
// (libfuzzer_test.go, built with the gofuzz tag) run it: it tests
// unexported code (the JSON validator), so it stays in this package.
// Nothing here is reachable from the package's API; the linker leaves it
// out of programs.

var roundTripExecs = fuzzkit.NewCounter("FuzzWireRoundTrip")

// genEvents builds a random well-formed event sequence that protocol p can
// express, in the names its decoder gives.
func genEvents(p Protocol, r *rand.Rand) []sealgate.Event {
	var evs []sealgate.Event
	nAtt := 1 + r.Intn(3)
	for a := 0; a < nAtt; a++ {
		att := fmt.Sprintf("r%d_%d", a, r.Intn(1000))
		evs = append(evs, sealgate.OpenEvent(att, "t1"))
		last := a == nAtt-1
		statuses := []sealgate.Status{sealgate.Complete, sealgate.Truncated, sealgate.Failed}
		if last {
			statuses = append(statuses, sealgate.Disconnected)
		}
		st := statuses[r.Intn(len(statuses))]
		nCalls := r.Intn(4)
		type call struct {
			item  string
			sent  []byte
			left  []string
			begun bool
		}
		var calls []*call
		perCand := map[int]int{}
		for i := 0; i < nCalls; i++ {
			c := &call{}
			switch p {
			case OpenAIResponses:
				c.item = itoa(i*2 + r.Intn(2))
			case OpenAIChat:
				c.item = fmt.Sprintf("%d:%d", r.Intn(2), i)
			case Anthropic:
				c.item = fmt.Sprintf("%s:%d", att, i+1)
			case Gemini:
				ci := r.Intn(2)
				c.item = fmt.Sprintf("%d:%d", ci, perCand[ci])
				perCand[ci]++
			}
			args := genArgs(r)
			if p == Gemini {
				c.left = []string{args}
			} else {
				c.left = split(r, args)
			}
			calls = append(calls, c)
		}
		// Interleave: pick a random call and take its next step.
		active := append([]*call{}, calls...)
		if p == Gemini {
			// Calls one after another: whole, or streamed as Vertex does
			// (the last one possibly cut).
			for k, c := range calls {
				call := "pos:" + c.item // no id on the wire
				if r.Intn(2) == 0 {
					call = fmt.Sprintf("fc_%d", r.Intn(1e6))
				}
				evs = append(evs, sealgate.BeginEvent(att, c.item, call, "tool_"+itoa(r.Intn(3))))
				if r.Intn(2) == 0 {
					evs = append(evs, sealgate.DeltaEvent(att, c.item, []byte(c.left[0])), sealgate.EndEvent(att, c.item))
					continue
				}
				frags := genVertexFrags(r)
				cut := k == len(calls)-1 && r.Intn(3) == 0
				if cut {
					frags = frags[:r.Intn(len(frags))] // no closers, no end
				}
				for _, f := range frags {
					evs = append(evs, sealgate.DeltaEvent(att, c.item, f))
				}
				if !cut {
					evs = append(evs, sealgate.EndEvent(att, c.item))
				}
			}
			evs = append(evs, sealgate.CloseEvent(att, st))
			continue
		}
		canEnd := p != OpenAIChat
		var begun []*call
		for len(active) > 0 {
			k := r.Intn(len(active))
			c := active[k]
			switch {
			case !c.begun:
				c.begun = true
				begun = append(begun, c)
				evs = append(evs, sealgate.BeginEvent(att, c.item, fmt.Sprintf("call_%s_%d", strings.ReplaceAll(c.item, ":", "_"), r.Intn(100)), "tool_"+itoa(r.Intn(3))))
			case len(c.left) > 0:
				evs = append(evs, sealgate.DeltaEvent(att, c.item, []byte(c.left[0])))
				c.sent = append(c.sent, c.left[0]...)
				c.left = c.left[1:]
			default:
				if canEnd && r.Intn(4) > 0 && (p != Anthropic || len(c.sent) > 0) {
					e := sealgate.EndEvent(att, c.item)
					if p == OpenAIResponses {
						e = sealgate.EndFinalEvent(att, c.item, append([]byte{}, c.sent...))
						if r.Intn(10) == 0 {
							e.Final = append(e.Final, ' ')
						}
					}
					evs = append(evs, e)
				}
				active = append(active[:k], active[k+1:]...)
			}
		}
		if p == OpenAIChat && st == sealgate.Complete {
			for ch := 0; ch < 2; ch++ {
				for _, c := range begun {
					if strings.HasPrefix(c.item, itoa(ch)+":") {
						evs = append(evs, sealgate.EndEvent(att, c.item))
					}
				}
			}
		}
		evs = append(evs, sealgate.CloseEvent(att, st))
	}
	return evs
}

// genArgs returns argument text, valid JSON or not, with the characters
// that stress a JSON-string transport.
func genArgs(r *rand.Rand) string {
	pieces := []string{`{"path":"notes.md","content":"Topic confirmed."}`, `{}`, `{"a":[1,2.5e3,{"b":null}]}`,
		`{"q":"\"quoted\" \\ back\nslash \u00e9 日本 🎉"}`, `{"x":"` + "\t\x01" + `"}`, `{"cut":"half`, ` { "sp" : true } `, `"str"`, `[1]`}
	s := pieces[r.Intn(len(pieces))]
	if r.Intn(5) == 0 {
		s = pieces[r.Intn(len(pieces))] + pieces[r.Intn(len(pieces))]
	}
	return s
}

// split cuts s into fragments at rune boundaries (a JSON string carries
// code points), with an empty fragment now and then.
func split(r *rand.Rand, s string) []string {
	var out []string
	rs := []rune(s)
	for len(rs) > 0 {
		n := 1 + r.Intn(len(rs))
		if r.Intn(6) == 0 {
			out = append(out, "")
		}
		out = append(out, string(rs[:n]))
		rs = rs[n:]
	}
	return out
}

func trimGemini(evs []sealgate.Event) []sealgate.Event {
	// A whole Gemini call's one fragment must be one JSON value without
	// surrounding space (a streamed call's fragments stay as they are).
	frags, ended := map[string]int{}, map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case sealgate.Delta:
			frags[e.Attempt+" "+e.Item]++
		case sealgate.End:
			ended[e.Attempt+" "+e.Item] = true
		}
	}
	var out []sealgate.Event
	for _, e := range evs {
		if k := e.Attempt + " " + e.Item; e.Kind == sealgate.Delta && frags[k] == 1 && ended[k] {
			b := bytes.Trim(e.Bytes, " ")
			if validate(b) != nil {
				b = []byte(`{"fixed":true}`)
			}
			e.Bytes = b
		}
		out = append(out, e)
	}
	return out
}

func sameEvents(a, b []sealgate.Event) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		if i >= len(a) || i >= len(b) || !a[i].Equal(b[i]) {
			var x, y string
			if i < len(a) {
				x = a[i].String()
			}
			if i < len(b) {
				y = b[i].String()
			}
			return fmt.Sprintf("event %d: want %s, got %s", i+1, x, y)
		}
	}
	return ""
}

// roundTrip is the round-trip target's body: decoding an encoding of a
// random well-formed sequence of p gives back the same events.
func roundTrip(t fuzzkit.TB, p Protocol, seed int64) {
	t.Helper()
	roundTripExecs.Add()
	r := rand.New(rand.NewSource(seed))
	evs := genEvents(p, r)
	if p == Gemini {
		evs = trimGemini(evs)
	}
	body, err := Encode(p, evs)
	if err != nil {
		t.Fatalf("%s seed %d: encode: %v\n%s", p, seed, err, formatEvents(evs))
	}
	got, err := Decode(p, bytes.NewReader(body), Options{})
	if err != nil {
		t.Fatalf("%s seed %d: decode: %v\nbody:\n%s", p, seed, err, body)
	}
	if d := sameEvents(evs, got); d != "" {
		t.Fatalf("%s seed %d: %s\nbody:\n%s", p, seed, d, body)
	}
}

func formatEvents(evs []sealgate.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}
