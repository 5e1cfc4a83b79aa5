// Package fuzztarget holds the bodies of the root fuzz targets as plain
// code, so that two engines run the same body: go test -fuzz, through the
// targets in the root package's fuzz_test.go (which add the seeds), and
// libFuzzer, through the harnesses in libfuzzer_test.go that
// go-118-fuzz-build turns into libFuzzer binaries (OSS-Fuzz,
// ClusterFuzzLite). A body takes fuzzkit.TB, which both engines' T
// satisfy, and counts its runs (Execs) so that a campaign reads how many
// inputs the target itself ran, not what go fuzz's coordinator heard of.
// The package also turns a target's arguments back into the scenario they
// stand for (scenarios.go), so that a failing input of either engine can
// be checked and reduced.
//
// The targets of gate, scn, wire and gate/internal/partial keep their
// bodies in their own packages (fuzzbody.go): they test unexported code,
// and their packages' own tests could not import this package (it imports
// them).
package fuzztarget

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

// The counters of the root targets' bodies, named as go test names the
// targets.
var (
	gateVsModelExecs  = fuzzkit.NewCounter("FuzzGateVsModel")
	strictJSONExecs   = fuzzkit.NewCounter("FuzzStrictJSON")
	chunkingExecs     = fuzzkit.NewCounter("FuzzChunking")
	scenarioTextExecs = fuzzkit.NewCounter("FuzzScenarioText")
)

// MaxEvents keeps one gate-vs-model input cheap to check.
const MaxEvents = 200

// MaxMachineBytes keeps one machine-reading input cheap: a run of the state
// machine ends by rapid's choice (30 steps on average), but an input that
// grows without bound could keep choosing to go on.
const MaxMachineBytes = 4 * fuzzkit.MachineSeedBytes

// MachineRun runs one run of the state machine on a rapid bitstream and
// fails t when the run fails its checks. go test passes
// rapid.MakeFuzz(machine.Fuzz(chk)), libFuzzer ReplayMachine.
type MachineRun func(t fuzzkit.TB, bits []byte)

// GateVsModel runs every check (check.All: the gate against the model, the
// invariants, I5, I6) on the scenario data holds in one of three readings
// (gen.ReadingOf): .scn text, bytes that drive gofuzz, or a rapid bitstream
// for one run of the state machine of package machine, which machineRun
// plays and checks.
func GateVsModel(t fuzzkit.TB, chk *check.Checker, machineRun MachineRun, data []byte) {
	t.Helper()
	gateVsModelExecs.Add()
	if gen.ReadingOf(data) == gen.Machine {
		// A failure prints the stream as a scenario; bits that run out
		// before the run ends skip it, once the steps so far pass.
		if len(data) <= MaxMachineBytes {
			machineRun(t, data[1:])
		}
		return
	}
	cfg, evs, ok := gen.Input(data)
	if !ok || len(evs) > MaxEvents {
		return
	}
	if err := chk.All(cfg, evs); err != nil {
		t.Fatalf("%v\n\nas a scenario (reduce with: go run ./cmd/sealfuzz reduce FILE):\n%s", err, reduce.Text(cfg, evs, err))
	}
}

// StrictJSON holds the gate's strict parser, the model's and encoding/json
// to one answer on doc at the depth limit depth picks.
func StrictJSON(t fuzzkit.TB, doc []byte, depth uint8) {
	t.Helper()
	strictJSONExecs.Add()
	limit := StrictDepth(depth)
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
}

// Chunking streams one document as one call, cut where cuts says, with
// peeks between fragments, and runs every check (I6 compares against the
// same stream re-split at every byte).
func Chunking(t fuzzkit.TB, doc, cuts []byte, tool uint8) {
	t.Helper()
	chunkingExecs.Add()
	if len(doc) > 4096 {
		return
	}
	cfg, evs := ChunkedCall(doc, cuts, tool)
	if err := check.All(cfg, evs); err != nil {
		t.Fatalf("%v\n\n%s", err, reduce.Text(cfg, evs, err))
	}
}

// ScenarioText parses src as a .scn file: an error must be a *scn.Error,
// and a scenario must print to text that parses back to it.
func ScenarioText(t fuzzkit.TB, src []byte) {
	t.Helper()
	scenarioTextExecs.Add()
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
}

// ReplayMachine is the machine reading without go test: machine.Replay
// plays the bits on chk's gate (rapid.MakeFuzz would need a *testing.T,
// which only go test makes). Bits that run out before the machine has a
// configuration are skipped, as rapid.MakeFuzz skips them.
func ReplayMachine(chk *check.Checker) MachineRun {
	return func(t fuzzkit.TB, bits []byte) {
		t.Helper()
		f, err := machine.Replay(chk, bits)
		if errors.Is(err, machine.ErrNoConfig) {
			return
		}
		if err != nil {
			t.Fatalf("machine reading: %v", err)
		}
		if f.Err != nil {
			t.Fatalf("%v\n\nas a scenario (reduce with: go run ./cmd/sealfuzz reduce FILE):\n%s", f.Err, reduce.Text(f.Config, f.Events, f.Err))
		}
	}
}

// FuzzSample is the share of scenarios (one in FuzzSample) that get the
// costliest checks while fuzzing (check.Checker.Sample).
const FuzzSample = 4

// ForFuzzing is chk as a fuzzing engine runs it: the determinism rerun and
// I6 on one scenario in FuzzSample, unless SEALGATE_CHECKS=full
// (fuzzkit.ChecksEnv). The engines call it only while fuzzing (a go test
// -fuzz worker, a libFuzzer binary), never for plain go test or a replay.
func ForFuzzing(chk *check.Checker) *check.Checker {
	if fuzzkit.FullChecks() {
		return chk
	}
	sampled := *chk
	sampled.Sample = FuzzSample
	return &sampled
}

// Checker is the checker of the fuzz targets: the real gate, or, when
// SEALGATE_FAULTS names a planted bug (zoo.FaultsEnv), the real gate with
// that bug on. A libFuzzer harness reads it once per process, not per input.
var Checker = sync.OnceValues(zoo.FromEnv)
