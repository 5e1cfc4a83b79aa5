//go:build gofuzz

package fuzztarget

import (
	"testing"

	"github.com/sealgate/sealgate/wire"
)

// The harnesses that go-118-fuzz-build turns into libFuzzer binaries
// (compile_native_go_fuzzer, see .clusterfuzzlite/build.sh). They are
// built only with the gofuzz tag, so that go test and the campaign do not
// run the root targets twice. Each is named as its go test target plus
// LibFuzzer, because compile_native_go_fuzzer looks for the name in every
// file of this folder and wants one file to declare it, while the bodies
// name their counters after the go test targets; the binary takes the go
// test name. Each does nothing before f.Fuzz (the shim runs the whole
// harness once per input: seeds come from the seed corpus zips instead of
// f.Add) and hands its input to the body in this package.

func FuzzGateVsModelLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		chk, err := Checker()
		if err != nil {
			t.Fatalf("%v", err)
		}
		chk = ForFuzzing(chk)
		GateVsModel(t, chk, ReplayMachine(chk), data)
	})
}

func FuzzStrictJSONLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, doc []byte, depth uint8) { StrictJSON(t, doc, depth) })
}

func FuzzChunkingLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, doc, cuts []byte, tool uint8) { Chunking(t, doc, cuts, tool) })
}

func FuzzScenarioTextLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, src []byte) { ScenarioText(t, src) })
}

func FuzzPreviewLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, x []byte, cutBits uint64, depth uint8, capb uint16) {
		Preview(t, x, cutBits, depth, capb)
	})
}

func FuzzWireOpenAIResponsesLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { WireDecode(t, wire.OpenAIResponses, data, jsonl) })
}

func FuzzWireOpenAIChatLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { WireDecode(t, wire.OpenAIChat, data, jsonl) })
}

func FuzzWireAnthropicLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { WireDecode(t, wire.Anthropic, data, jsonl) })
}

func FuzzWireGeminiLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) { WireDecode(t, wire.Gemini, data, jsonl) })
}
