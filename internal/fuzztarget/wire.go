package fuzztarget

import (
	"bytes"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/wire"
)

// wireExecs counts each decoder's target, named as go test names them.
var wireExecs = map[wire.Protocol]*fuzzkit.Counter{
	wire.OpenAIResponses: fuzzkit.NewCounter("FuzzWireOpenAIResponses"),
	wire.OpenAIChat:      fuzzkit.NewCounter("FuzzWireOpenAIChat"),
	wire.Anthropic:       fuzzkit.NewCounter("FuzzWireAnthropic"),
	wire.Gemini:          fuzzkit.NewCounter("FuzzWireGemini"),
}

// WireDecode feeds arbitrary bytes to one vendor's decoder, in the framing
// jsonl picks: it must not panic, must stay within the size of its input,
// must end every attempt it opens, and its events must pass through the
// gate, which releases only calls of attempts that closed complete. (It
// lives here, not in package wire, because it runs the gate: wire comes
// before the gate in the suite's flow and does not import it.)
func WireDecode(t fuzzkit.TB, p wire.Protocol, data []byte, jsonl bool) {
	t.Helper()
	if c := wireExecs[p]; c != nil {
		c.Add()
	}
	o := wire.Options{MaxLine: 1 << 16, MaxEvent: 1 << 16, MaxCalls: 16}
	if jsonl {
		o.Framing = wire.JSONL
	}
	evs, _ := wire.Decode(p, bytes.NewReader(data), o)
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
	tr := check.Default.Record(wire.ToolsConfig(evs), evs)
	ds, err := tr.Decisions, tr.Err
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
}
