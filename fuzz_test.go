package sealgate_test

import (
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/scn"
)

// Native go fuzz targets. Each is seeded from corpus/ (and JSONTestSuite,
// read in place, where it helps); `go test` runs the seeds, and
// `go test -fuzz=FuzzX` or `go run ./cmd/sealfuzz` explores.

func corpusFiles(tb testing.TB) []string {
	files, err := scn.Files("corpus")
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// faultyChecker is the checker of the fuzz targets: the real gate, or,
// when SEALGATE_FAULTS names planted bugs (the suite's own tests set it to
// prove that go fuzz finds them), the real gate with those bugs on.
func faultyChecker(tb testing.TB) *check.Checker {
	chk, err := zoo.FromEnv()
	if err != nil {
		tb.Fatal(err)
	}
	return chk
}

// The targets below add their seeds and hand each input to the body in
// package fuzztarget, which the libFuzzer harnesses call too; their seeds
// (fuzzSeeds) are also written out for libFuzzer by TestWriteSeedCorpus.

// gateVsModelSeeds: the generic seeds (fuzzkit.Seeds, picked by
// SEALGATE_FUZZ_SEED) come first, then, without a planted bug, the corpus:
// with one, the corpus would catch it before fuzzing starts, so it is left
// out and the fuzzer has to find the bug itself.
func gateVsModelSeeds(tb testing.TB) [][]any {
	run, err := fuzzkit.SeedFromEnv()
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]any
	for _, b := range fuzzkit.Seeds(run) {
		out = append(out, []any{b})
	}
	if faultyChecker(tb) == check.Default {
		for _, path := range corpusFiles(tb) {
			if src, err := os.ReadFile(path); err == nil {
				out = append(out, []any{append([]byte{1}, src...)})
			}
		}
	}
	return out
}

// FuzzGateVsModel runs every check on scenarios read from its input in one
// of three ways (fuzztarget.GateVsModel): .scn text, bytes that drive gofuzz,
// or a rapid bitstream that drives one run of the state machine
// (machine.Fuzz, through rapid.MakeFuzz), so that every mutation of such
// an input is a coherent stream.
func FuzzGateVsModel(f *testing.F) {
	chk := faultyChecker(f)
	if fuzzkit.GoFuzzWorker() {
		chk = fuzztarget.ForFuzzing(chk)
	}
	fuzzkit.AddSeeds(f, gateVsModelSeeds(f))
	machineRun := rapid.MakeFuzz(machine.Fuzz(chk))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzztarget.GateVsModel(t, chk, func(_ fuzzkit.TB, bits []byte) { machineRun(t, bits) }, data)
	})
}

func strictJSONSeeds() [][]any {
	var out [][]any
	if entries, err := os.ReadDir(jsonTestSuiteDir()); err == nil {
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(jsonTestSuiteDir(), e.Name())); err == nil && len(b) < 4096 {
				out = append(out, []any{b, uint8(64)})
			}
		}
	}
	for _, d := range gen.Docs {
		out = append(out, []any{[]byte(d), uint8(3)})
	}
	return out
}

func FuzzStrictJSON(f *testing.F) {
	fuzzkit.AddSeeds(f, strictJSONSeeds())
	f.Fuzz(func(t *testing.T, doc []byte, depth uint8) { fuzztarget.StrictJSON(t, doc, depth) })
}

func chunkingSeeds() [][]any {
	var out [][]any
	for _, d := range gen.Docs {
		out = append(out, []any{[]byte(d), []byte{3, 1, 7, 2}, uint8(0)})
	}
	return append(out, []any{[]byte(`{"token":"abcdef","content":"日本"}`), []byte{9, 1, 1, 1, 1}, uint8(1)})
}

// FuzzChunking streams one document as one call, cut where the fuzzer
// says (fuzztarget.Chunking).
func FuzzChunking(f *testing.F) {
	fuzzkit.AddSeeds(f, chunkingSeeds())
	f.Fuzz(func(t *testing.T, doc, cuts []byte, tool uint8) { fuzztarget.Chunking(t, doc, cuts, tool) })
}

func scenarioTextSeeds(tb testing.TB) [][]any {
	var out [][]any
	for _, path := range corpusFiles(tb) {
		if src, err := os.ReadFile(path); err == nil {
			out = append(out, []any{src})
		}
	}
	return append(out, []any{[]byte("open r1 turn=t1\n----\n")})
}

func FuzzScenarioText(f *testing.F) {
	fuzzkit.AddSeeds(f, scenarioTextSeeds(f))
	f.Fuzz(func(t *testing.T, src []byte) { fuzztarget.ScenarioText(t, src) })
}

// TestWriteSeedCorpus writes the seeds of this package's targets for
// libFuzzer (fuzzkit.SeedCorpusEnv; .clusterfuzzlite/build.sh zips them).
func TestWriteSeedCorpus(t *testing.T) {
	fuzzkit.WriteSeedCorpus(t, map[string][][]any{
		"FuzzGateVsModel":  gateVsModelSeeds(t),
		"FuzzStrictJSON":   strictJSONSeeds(),
		"FuzzChunking":     chunkingSeeds(),
		"FuzzScenarioText": scenarioTextSeeds(t),
		"FuzzPreview":      fuzztarget.PreviewSeeds(),
	})
}
