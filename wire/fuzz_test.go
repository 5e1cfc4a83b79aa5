package wire_test

import (
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/wire"
)

// The decoders' fuzz targets: arbitrary bytes to one decoder, in both
// framings (fuzztarget.WireDecode, which the libFuzzer harnesses call too).

func decodeSeeds(p wire.Protocol) [][]any {
	var out [][]any
	for _, s := range wire.FuzzSeeds(p) {
		out = append(out, []any{s, false})
	}
	return out
}

func fuzzDecode(f *testing.F, p wire.Protocol) {
	fuzzkit.AddSeeds(f, decodeSeeds(p))
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzztarget.WireDecode(t, p, data, jsonl) })
}

func FuzzWireOpenAIResponses(f *testing.F) { fuzzDecode(f, wire.OpenAIResponses) }
func FuzzWireOpenAIChat(f *testing.F)      { fuzzDecode(f, wire.OpenAIChat) }
func FuzzWireAnthropic(f *testing.F)       { fuzzDecode(f, wire.Anthropic) }
func FuzzWireGemini(f *testing.F)          { fuzzDecode(f, wire.Gemini) }

// TestWriteSeedCorpus writes the decoders' fuzz seeds for libFuzzer
// (fuzzkit.SeedCorpusEnv).
func TestWriteSeedCorpus(t *testing.T) {
	fuzzkit.WriteSeedCorpus(t, map[string][][]any{
		"FuzzWireOpenAIResponses": decodeSeeds(wire.OpenAIResponses),
		"FuzzWireOpenAIChat":      decodeSeeds(wire.OpenAIChat),
		"FuzzWireAnthropic":       decodeSeeds(wire.Anthropic),
		"FuzzWireGemini":          decodeSeeds(wire.Gemini),
		"FuzzWireRoundTrip":       wire.RoundTripSeeds(),
		"FuzzWireVertexPieces":    wire.VertexPieceSeeds(),
		"FuzzWireGeminiArray":     wire.GeminiArraySeeds(),
	})
}
