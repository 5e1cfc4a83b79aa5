package wire

import (
	"bytes"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// The body of FuzzWireGeminiArray, in plain code like fuzzbody.go, so that
// both go test -fuzz (vertex_test.go) and the libFuzzer harness
// (libfuzzer_test.go) run it. Nothing here is reachable from the package's
// API.

var geminiArrayExecs = fuzzkit.NewCounter("FuzzWireGeminiArray")

// geminiArrayRun reads arbitrary bytes as Gemini's JSON array stream: the
// decoder must not panic and must close every attempt it opens.
func geminiArrayRun(t fuzzkit.TB, data []byte) {
	geminiArrayExecs.Add()
	evs, _ := Decode(Gemini, bytes.NewReader(data), Options{Framing: JSONArray, MaxLine: 1 << 16, MaxEvent: 1 << 16, MaxCalls: 16})
	open := map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case sealgate.Open:
			open[e.Attempt] = true
		case sealgate.Close:
			delete(open, e.Attempt)
		}
	}
	if len(open) > 0 {
		t.Fatalf("attempts left open: %v", open)
	}
}
