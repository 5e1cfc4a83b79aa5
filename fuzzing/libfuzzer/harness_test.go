//go:build gofuzz

package libfuzzer

import (
	"testing"

	"github.com/sealgate/sealgate/fuzzing"
)

func FuzzGateVsModel(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		chk, err := fuzzing.Checker()
		if err != nil {
			t.Fatalf("%v", err)
		}
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
