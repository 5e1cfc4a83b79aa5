package wire

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
)

// fuzzDecode feeds arbitrary bytes to one decoder, in both framings: it
// must not panic, must stay within the size of its input, must end every
// attempt it opens, and its events must pass through the gate.
func fuzzDecode(f *testing.F, p Protocol) {
	for _, s := range fuzzSeeds(p) {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) {
		o := Options{MaxLine: 1 << 16, MaxEvent: 1 << 16, MaxCalls: 16}
		if jsonl {
			o.Framing = JSONL
		}
		evs, _ := Decode(p, bytes.NewReader(data), o)
		size := 0
		open := map[string]bool{}
		for _, e := range evs {
			size += len(e.Bytes) + len(e.Final)
			switch e.Kind {
			case sealgate.Open:
				open[e.Attempt] = true
			case sealgate.Close:
				delete(open, e.Attempt)
			}
		}
		if size > 2*len(data)+64 {
			t.Fatalf("%d bytes of events from %d bytes of input", size, len(data))
		}
		if len(open) > 0 {
			t.Fatalf("attempts left open: %v", open)
		}
		ds, err := check.RunGate(ToolsConfig(evs), evs)
		if err != nil {
			t.Fatalf("gate: %v", err)
		}
		closed := map[string]sealgate.Status{}
		for _, e := range evs {
			if e.Kind == sealgate.Close {
				closed[e.Attempt] = e.Status
			}
		}
		for _, d := range ds {
			if d.Kind == sealgate.Release && closed[d.Attempt] != sealgate.Complete {
				t.Fatalf("release from attempt %s, closed %s", d.Attempt, closed[d.Attempt])
			}
		}
	})
}

// fuzzSeeds: the captures when present, and encodings of random sequences.
func fuzzSeeds(p Protocol) [][]byte {
	var out [][]byte
	if dir, ok := fixturesDir(); ok {
		files, _ := filepath.Glob(filepath.Join(dir, string(p), "*.sse"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && len(b) < 64<<10 {
				out = append(out, b)
			}
		}
	}
	for seed := int64(0); seed < 4; seed++ {
		evs := genEvents(p, rand.New(rand.NewSource(seed)))
		if p == Gemini {
			evs = trimGemini(evs)
		}
		if b, err := Encode(p, evs); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func FuzzWireOpenAIResponses(f *testing.F) { fuzzDecode(f, OpenAIResponses) }
func FuzzWireOpenAIChat(f *testing.F)      { fuzzDecode(f, OpenAIChat) }
func FuzzWireAnthropic(f *testing.F)       { fuzzDecode(f, Anthropic) }
func FuzzWireGemini(f *testing.F)          { fuzzDecode(f, Gemini) }
