//go:build gofuzz

package libfuzzer

import (
	"testing"

	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/wire"
)

func FuzzGateVsModel(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		chk, err := fuzztarget.Checker()
		if err != nil {
			t.Fatalf("%v", err)
		}
		chk = fuzztarget.ForFuzzing(chk)
		fuzztarget.GateVsModel(t, chk, fuzztarget.ReplayMachine(chk), data)
	})
}

func FuzzStrictJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, doc []byte, depth uint8) { fuzztarget.StrictJSON(t, doc, depth) })
}

func FuzzChunking(f *testing.F) {
	f.Fuzz(func(t *testing.T, doc, cuts []byte, tool uint8) { fuzztarget.Chunking(t, doc, cuts, tool) })
}

func FuzzScenarioText(f *testing.F) {
	f.Fuzz(func(t *testing.T, src []byte) { fuzztarget.ScenarioText(t, src) })
}

func FuzzPreview(f *testing.F) {
	f.Fuzz(func(t *testing.T, x []byte, cutBits uint64, depth uint8, capb uint16) {
		fuzztarget.Preview(t, x, cutBits, depth, capb)
	})
}

func FuzzWireOpenAIResponses(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzztarget.WireDecode(t, wire.OpenAIResponses, data, jsonl) })
}

func FuzzWireOpenAIChat(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzztarget.WireDecode(t, wire.OpenAIChat, data, jsonl) })
}

func FuzzWireAnthropic(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzztarget.WireDecode(t, wire.Anthropic, data, jsonl) })
}

func FuzzWireGemini(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { fuzztarget.WireDecode(t, wire.Gemini, data, jsonl) })
}
