package coverage_test

import (
	"testing"

	"github.com/sealgate/sealgate/internal/coverage"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/model"
)

// extractExecs counts FuzzExtract's runs for the campaign.
var extractExecs = fuzzkit.NewCounter("FuzzExtract")

// FuzzExtract: any scenario the gofuzz reading decodes is read without a
// panic, into catalog features only, the same way twice, and never into a
// pair the SPEC rules out.
func FuzzExtract(f *testing.F) {
	for _, s := range fuzzkit.Seeds(0) {
		if len(s) < 4096 {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		extractExecs.Add()
		cfg, evs := gen.FromBytes(data)
		ds := model.Run(cfg, evs)
		got := coverage.Extract(cfg, evs, ds)
		again := coverage.Extract(cfg, evs, ds)
		if len(got) != len(again) {
			t.Fatalf("two extractions differ: %v, then %v", got.Sorted(), again.Sorted())
		}
		for f := range got {
			if !coverage.Known(f) || !again[f] {
				t.Fatalf("feature %s: unknown, or not extracted again", f)
			}
		}
		un := coverage.UnreachablePairs()
		for p := range coverage.Pairs(got) {
			if un[p] {
				t.Fatalf("reached %s, which the SPEC rules out", p)
			}
		}
	})
}
