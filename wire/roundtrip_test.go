package wire

import (
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// TestRoundTrip: decoding an encoding gives back the same events, for
// random well-formed sequences each protocol can express.
func TestRoundTrip(t *testing.T) {
	for _, p := range Protocols {
		for seed := int64(0); seed < 400; seed++ {
			roundTrip(t, p, seed)
		}
	}
}

// roundTripSeeds are FuzzWireRoundTrip's seeds, also written out for
// libFuzzer (TestWriteSeedCorpus in fuzz_test.go).
func roundTripSeeds() [][]any {
	var out [][]any
	for i := int64(0); i < 8; i++ {
		out = append(out, []any{i, uint8(i)})
	}
	return out
}

func FuzzWireRoundTrip(f *testing.F) {
	fuzzkit.AddSeeds(f, roundTripSeeds())
	f.Fuzz(func(t *testing.T, seed int64, p uint8) {
		roundTrip(t, Protocols[int(p)%len(Protocols)], seed)
	})
}
