// Package throughput measures how fast the fuzz target bodies run outside
// go fuzz: execs per CPU-second of FuzzGateVsModel per reading (text,
// gofuzz, machine) and of FuzzChunking, counted by the bodies themselves
// (fuzzkit), on one fixed input set per target, and where one exec's
// checking time goes among check.All's steps. A second table measures what
// sampling the costliest checks loses on each zoo bug. The sets are seeded,
// so every run sees the same bytes; the numbers are a measurement, never a
// verdict.
package throughput

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/model"
)

// Options says what to measure.
type Options struct {
	Inputs int    // generated inputs per set, beside the targets' seeds
	Corpus string // the scenario folder whose files are the text reading's seeds
	Seed   int64  // SEALGATE_FUZZ_SEED: which generic seeds fuzzkit.Seeds gives
	Zoo    bool   // also measure what sampling loses, bug by bug
}

// Run writes the throughput table (and, with o.Zoo, the sampling table) to
// w. The checker is a go fuzz worker's: the costliest checks sampled
// (fuzztarget.ForFuzzing), or all of them with SEALGATE_CHECKS=full. The
// machine reading runs as the libFuzzer harness runs it
// (fuzztarget.ReplayMachine: rapid replays the bits from a fail file), since
// rapid.MakeFuzz, go fuzz's way, needs a *testing.T that only go test
// makes; that replay costs more per exec. An error is a body that failed,
// or a set that could not be read.
func Run(o Options, w io.Writer) error {
	chk := fuzztarget.ForFuzzing(check.Default)
	seeds, err := gateVsModelSeeds(o)
	if err != nil {
		return err
	}
	if err := throughputTable(w, chk, seeds, o.Inputs); err != nil {
		return err
	}
	if o.Zoo {
		samplingTable(w, seeds, o.Inputs)
	}
	return nil
}

// throughputTable measures each reading of FuzzGateVsModel and
// FuzzChunking and writes one row each.
func throughputTable(w io.Writer, chk *check.Checker, seeds [][]byte, n int) error {
	machineRun := fuzztarget.ReplayMachine(chk)
	runGVM := func(t fuzzkit.TB, in []byte) { fuzztarget.GateVsModel(t, chk, machineRun, in) }
	checks := fmt.Sprintf("sampled (determinism and I6 on one scenario in %d)", chk.Sample)
	if chk.Sample <= 1 {
		checks = "all"
	}
	fmt.Fprintf(w, "\nchecks: %s\n", checks)
	fmt.Fprintf(w, "\n| target | reading | inputs | execs | CPU s | execs/CPU-s | checked | gate | model | determinism | invariants | I6 bytes | I6 cuts | I5 | not checking |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, reading := range []gen.Reading{gen.Text, gen.Gofuzz, gen.Machine} {
		set := gateVsModelSet(seeds, reading, n)
		r, err := measure("FuzzGateVsModel", set, runGVM)
		if err != nil {
			return err
		}
		var scenarios []scenario
		for _, in := range set {
			if s, ok := decode(chk, in); ok {
				scenarios = append(scenarios, s)
			}
		}
		fmt.Fprintf(w, "| FuzzGateVsModel | %s | %s |\n", readingName(reading), r.row(splitChecks(chk, scenarios)))
	}
	chunks := chunkingSet(n)
	r, err := measure("FuzzChunking", chunks, func(t fuzzkit.TB, in []byte) {
		args, _, _ := fuzzkit.Decode(in, []byte(nil), []byte(nil), uint8(0))
		fuzztarget.Chunking(t, args[0].([]byte), args[1].([]byte), args[2].(uint8))
	})
	if err != nil {
		return err
	}
	var scenarios []scenario
	for _, in := range chunks {
		args, _, _ := fuzzkit.Decode(in, []byte(nil), []byte(nil), uint8(0))
		if doc := args[0].([]byte); len(doc) <= 4096 {
			cfg, evs := fuzztarget.ChunkedCall(doc, args[1].([]byte), args[2].(uint8))
			scenarios = append(scenarios, scenario{cfg, evs})
		}
	}
	fmt.Fprintf(w, "| FuzzChunking | - | %s |\n", r.row(splitChecks(check.Default, scenarios)))
	return nil
}

func readingName(r gen.Reading) string {
	return map[gen.Reading]string{gen.Text: "text", gen.Gofuzz: "gofuzz", gen.Machine: "machine"}[r]
}

// rate is one set's measurement.
type rate struct {
	inputs, execs int64
	cpu           time.Duration
}

// measure runs every input of set through run and reads the target's count
// and this process's CPU time around it.
func measure(target string, set [][]byte, run func(fuzzkit.TB, []byte)) (rate, error) {
	runtime.GC()
	n0, cpu0 := fuzzkit.Count(target), fuzzkit.ProcessCPU()
	for i, in := range set {
		if err := runOne(run, in); err != nil {
			return rate{}, fmt.Errorf("%s: input %d of its set fails: %v", target, i, err)
		}
	}
	return rate{int64(len(set)), fuzzkit.Count(target) - n0, fuzzkit.ProcessCPU() - cpu0}, nil
}

// row is the table row; the last column is the share of the measured CPU
// time not spent in chk.All (decoding, rapid, GC).
func (r rate) row(split string, checking time.Duration) string {
	return fmt.Sprintf("%d | %d | %.1f | %.0f | %s | %.0f%%", r.inputs, r.execs, r.cpu.Seconds(), float64(r.execs)/r.cpu.Seconds(), split, 100*(1-float64(checking)/float64(r.cpu)))
}

type scenario struct {
	cfg sealgate.Config
	evs []sealgate.Event
}

// decode is the scenario one FuzzGateVsModel input is checked on (the
// machine reading's by replaying the run).
func decode(chk *check.Checker, in []byte) (scenario, bool) {
	if gen.ReadingOf(in) == gen.Machine {
		f, err := machine.Replay(chk, in[1:])
		if err != nil || len(in) > fuzztarget.MaxMachineBytes {
			return scenario{}, false
		}
		return scenario{f.Config, f.Events}, true
	}
	cfg, evs, ok := gen.Input(in)
	return scenario{cfg, evs}, ok && len(evs) <= fuzztarget.MaxEvents
}

// splitChecks runs check.All's steps one by one over the scenarios, in
// All's order, and gives each step's share of their total thread CPU time,
// the mean time of all the steps per scenario, and the time chk.All itself
// takes (less than the steps' when chk samples).
func splitChecks(chk *check.Checker, scenarios []scenario) (string, time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	steps := []string{"gate", "model", "determinism", "invariants", "I6 bytes", "I6 cuts", "I5"}
	spent := make([]time.Duration, len(steps))
	for _, s := range scenarios {
		lap := threadCPU()
		tick := func(i int) {
			now := threadCPU()
			spent[i] += now - lap
			lap = now
		}
		tr := chk.Record(s.cfg, s.evs)
		tick(0)
		model.Run(s.cfg, s.evs)
		tick(1)
		if tr.Err != nil || tr.Refused {
			continue
		}
		chk.Record(s.cfg, s.evs)
		tick(2)
		check.Invariants(tr)
		tick(3)
		chk.CheckChunking(s.cfg, s.evs, tr.Decisions, check.SingleBytes)
		tick(4)
		chk.CheckChunking(s.cfg, s.evs, tr.Decisions, check.RandomCuts(int64(len(s.evs))))
		tick(5)
		chk.CheckIsolation(s.cfg, s.evs, tr.Decisions)
		tick(6)
	}
	var total time.Duration
	for _, d := range spent {
		total += d
	}
	// What chk.All itself costs on them: the steps' total, or less when
	// chk samples its costliest checks.
	lap := threadCPU()
	for _, s := range scenarios {
		chk.All(s.cfg, s.evs)
	}
	checking := threadCPU() - lap
	var events, bytes int
	for _, s := range scenarios {
		events += len(s.evs)
		for _, e := range s.evs {
			bytes += len(e.Bytes)
		}
	}
	perScenario := func(n int) float64 { return float64(n) / float64(max(1, len(scenarios))) }
	out := []string{fmt.Sprintf("%d (%.0f events, %.0f bytes each), %.0f µs each (all steps), %.0f µs (chk.All)", len(scenarios), perScenario(events), perScenario(bytes), float64(total.Microseconds())/float64(max(1, len(scenarios))), float64(checking.Microseconds())/float64(max(1, len(scenarios))))}
	for _, d := range spent {
		out = append(out, fmt.Sprintf("%.0f%%", 100*float64(d)/float64(max(1, total))))
	}
	return strings.Join(out, " | "), checking
}

// samplingTable measures what sampling the costliest checks
// (fuzztarget.FuzzSample) loses: for every zoo bug, on the text and gofuzz
// sets, how many scenarios fail every check and how many fail the sampled
// checker, and which check fails first at full fidelity.
func samplingTable(w io.Writer, seeds [][]byte, n int) {
	var scenarios []scenario
	for _, r := range []gen.Reading{gen.Text, gen.Gofuzz} {
		for _, in := range gateVsModelSet(seeds, r, n) {
			if s, ok := decode(check.Default, in); ok {
				scenarios = append(scenarios, s)
			}
		}
	}
	fmt.Fprintf(w, "\n%d scenarios; sampled: determinism and I6 on one in %d\n\n| bug | fail, all checks | fail, sampled | first failing check (all checks) |\n|---|---|---|---|\n", len(scenarios), fuzztarget.FuzzSample)
	for _, b := range zoo.All {
		full := b.Checker()
		sampled := *full
		sampled.Sample = fuzztarget.FuzzSample
		first := map[string]int{}
		nFull, nSampled := 0, 0
		for _, s := range scenarios {
			if err := full.All(s.cfg, s.evs); err != nil {
				nFull++
				var v *check.Violation
				if errors.As(err, &v) {
					first[v.ID]++
				}
			}
			if sampled.All(s.cfg, s.evs) != nil {
				nSampled++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %v |\n", b.Name, nFull, nSampled, first)
	}
}
