//go:build gofuzz

package libfuzzer

import (
	"testing"

	"github.com/sealgate/sealgate/fuzzing"
	"github.com/sealgate/sealgate/wire"
)

func FuzzGateVsModel(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		chk, err := fuzzing.Checker()
		if err != nil {
			t.Fatalf("%v", err)
		}
		chk = fuzzing.ForFuzzing(chk)
		fuzzing.GateVsModel(t, chk, fuzzing.ReplayMachine(chk), data)
	})
}

func FuzzStrictJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, doc []byte, depth uint8) { fuzzing.StrictJSON(t, doc, depth) })
}

func FuzzChunking(f *testing.F) {
	f.Fuzz(func(t *testing.T, doc, cuts []byte, tool uint8) { fuzzing.Chunking(t, doc, cuts, tool) })
}

func FuzzScenarioText(f *testing.F) {
	f.Fuzz(func(t *testing.T, src []byte) { fuzzing.ScenarioText(t, src) })
}

func FuzzPreview(f *testing.F) {
	f.Fuzz(func(t *testing.T, x []byte, cutBits uint64, depth uint8, capb uint16) {
		fuzzing.Preview(t, x, cutBits, depth, capb)
	})
}

func FuzzWireOpenAIResponses(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzzing.WireDecode(t, wire.OpenAIResponses, data, jsonl) })
}

func FuzzWireOpenAIChat(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzzing.WireDecode(t, wire.OpenAIChat, data, jsonl) })
}

func FuzzWireAnthropic(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzzing.WireDecode(t, wire.Anthropic, data, jsonl) })
}

func FuzzWireGemini(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzzing.WireDecode(t, wire.Gemini, data, jsonl) })
}
