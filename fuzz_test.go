package sealgate_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/gen"
	"github.com/sealgate/sealgate/machine"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/reduce"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/zoo"
)

// Native go fuzz targets. Each is seeded from corpus/ (and JSONTestSuite,
// read in place, where it helps); `go test` runs the seeds, and
// `go test -fuzz=FuzzX` or `go run ./cmd/sealfuzz` explores.

// maxFuzzEvents keeps one input cheap to check.
const maxFuzzEvents = 200

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

// maxMachineBytes keeps one machine-reading input cheap: a run of the state
// machine ends by rapid's choice (30 steps on average), but an input that
// grows without bound could keep choosing to go on.
const maxMachineBytes = 4 * gen.MachineSeedBytes

// FuzzGateVsModel runs every check (check.All: the gate against the model,
// the invariants, I5, I6) on scenarios read from its input in one of three
// ways (gen.ReadingOf): .scn text, bytes that drive gofuzz, or a rapid
// bitstream that drives one run of the state machine of package machine
// (machine.Fuzz), so that every mutation of such an input is a coherent
// stream. The generic seeds (gen.Seeds, picked by SEALGATE_FUZZ_SEED)
// come first, then, without a planted bug, the corpus.
func FuzzGateVsModel(f *testing.F) {
	chk := faultyChecker(f)
	run, err := gen.SeedFromEnv()
	if err != nil {
		f.Fatal(err)
	}
	// Generic shapes, the same with or without a planted bug.
	for _, b := range gen.Seeds(run) {
		f.Add(b)
	}
	// With a planted bug the corpus would catch it before fuzzing starts;
	// leave it out so that the fuzzer has to find the bug itself.
	if chk == check.Default {
		for _, path := range corpusFiles(f) {
			if src, err := os.ReadFile(path); err == nil {
				f.Add(append([]byte{1}, src...))
			}
		}
	}
	machineRun := rapid.MakeFuzz(machine.Fuzz(chk))
	f.Fuzz(func(t *testing.T, data []byte) {
		if gen.ReadingOf(data) == gen.Machine {
			// One run of the state machine, checked when it is over: a
			// failure prints the stream as a scenario; bits that run out
			// before the run ends skip it, once the steps so far pass.
			if len(data) <= maxMachineBytes {
				machineRun(t, data[1:])
			}
			return
		}
		cfg, evs, ok := gen.Input(data)
		if !ok || len(evs) > maxFuzzEvents {
			return
		}
		if err := chk.All(cfg, evs); err != nil {
			t.Fatalf("%v\n\nas a scenario (reduce with: go run ./cmd/sealfuzz reduce FILE):\n%s", err, reduce.Text(cfg, evs, err))
		}
	})
}

func FuzzStrictJSON(f *testing.F) {
	if entries, err := os.ReadDir(jsonTestSuiteDir()); err == nil {
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(jsonTestSuiteDir(), e.Name())); err == nil && len(b) < 4096 {
				f.Add(b, uint8(64))
			}
		}
	}
	for _, d := range gen.Docs {
		f.Add([]byte(d), uint8(3))
	}
	f.Fuzz(func(t *testing.T, doc []byte, depth uint8) {
		limit := gen.StrictDepth(depth)
		g, gerr := gate.ValidJSON(doc, limit)
		m, merr := model.CheckJSON(doc, limit)
		if g != m {
			t.Fatalf("%q (depth %d): gate %q (%v), model %q (%v)", doc, limit, g, gerr, m, merr)
		}
		if g != "" {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, doc); err != nil {
			t.Fatalf("%q accepted by both strict parsers but encoding/json says %v", doc, err)
		}
		if got := sealgate.Compact(doc); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Compact(%q) = %q, want %q", doc, got, want.Bytes())
		}
	})
}

// FuzzChunking streams one document as one call, cut where the fuzzer
// says, with peeks between fragments, and runs every check (I6 compares
// against the same stream re-split at every byte).
func FuzzChunking(f *testing.F) {
	for _, d := range gen.Docs {
		f.Add([]byte(d), []byte{3, 1, 7, 2}, uint8(0))
	}
	f.Add([]byte(`{"token":"abcdef","content":"日本"}`), []byte{9, 1, 1, 1, 1}, uint8(1))
	f.Fuzz(func(t *testing.T, doc, cuts []byte, tool uint8) {
		if len(doc) > 4096 {
			return
		}
		cfg, evs := gen.ChunkedCall(doc, cuts, tool)
		if err := check.All(cfg, evs); err != nil {
			t.Fatalf("%v\n\n%s", err, reduce.Text(cfg, evs, err))
		}
	})
}

func FuzzScenarioText(f *testing.F) {
	for _, path := range corpusFiles(f) {
		if src, err := os.ReadFile(path); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("open r1 turn=t1\n----\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := scn.Parse("fuzz.scn", src)
		if err != nil {
			if _, ok := err.(*scn.Error); !ok {
				t.Fatalf("error of type %T, want *scn.Error: %v", err, err)
			}
			return
		}
		again, err := scn.Parse("fuzz.scn", s.Format())
		if err != nil {
			t.Fatalf("printed scenario does not parse: %v\n%s", err, s.Format())
		}
		if !s.Equal(again) {
			t.Fatalf("parse, print, parse changed the scenario:\n%s\n---- became ----\n%s", s.Format(), again.Format())
		}
		s.Config() // refusal or not, never a panic
	})
}
