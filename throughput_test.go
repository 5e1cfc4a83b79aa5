package sealgate_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/zoo"
)

// throughputEnv turns TestThroughput on: the number of generated inputs
// per set (the baseline uses 10000).
const throughputEnv = "SEALGATE_THROUGHPUT"

// TestThroughput measures execs per CPU-second of FuzzGateVsModel per
// reading (text, gofuzz, machine) and of FuzzChunking, counted by the
// bodies themselves (fuzzkit), on one fixed input set: the target's seeds
// plus N generated inputs (seeded, so every run sees the same bytes), run
// through the same bodies as go test -fuzz (the machine reading through
// rapid.MakeFuzz, as go test runs it) with a go fuzz worker's checker (the
// costliest checks sampled, fuzztarget.ForFuzzing; all of them with
// SEALGATE_CHECKS=full), without go fuzz's coverage instrumentation. Then it splits one exec's checking time into check.All's
// steps (gate, model, the determinism rerun, the invariants, I6 byte by
// byte and at random cuts, I5), timed by this thread's CPU clock over the
// scenarios each input decodes to. The table goes to standard output. A measurement, not a check: it runs only
// with SEALGATE_THROUGHPUT=N and fails only when a body fails.
func TestThroughput(t *testing.T) {
	n := throughputInputs(t)
	// The checker of a go fuzz worker: the costliest checks sampled
	// (fuzztarget.ForFuzzing), or all of them with SEALGATE_CHECKS=full.
	chk := fuzztarget.ForFuzzing(check.Default)
	machineRun := rapid.MakeFuzz(machine.Fuzz(chk))
	runGVM := func(t *testing.T, in []byte) {
		fuzztarget.GateVsModel(t, chk, func(_ fuzzkit.TB, bits []byte) { machineRun(t, bits) }, in)
	}
	var report strings.Builder
	fmt.Fprintf(&report, "\nchecks: %s\n", map[bool]string{true: "all", false: fmt.Sprintf("sampled (determinism and I6 on one scenario in %d)", chk.Sample)}[chk.Sample <= 1])
	fmt.Fprintf(&report, "\n| target | reading | inputs | execs | CPU s | execs/CPU-s | checked | gate | model | determinism | invariants | I6 bytes | I6 cuts | I5 | not checking |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, reading := range []gen.Reading{gen.Text, gen.Gofuzz, gen.Machine} {
		set := gateVsModelSet(t, reading, n)
		rate := measure(t, "FuzzGateVsModel", set, runGVM)
		var scenarios []scenario
		for _, in := range set {
			if s, ok := decode(chk, in); ok {
				scenarios = append(scenarios, s)
			}
		}
		fmt.Fprintf(&report, "| FuzzGateVsModel | %s | %s |\n", readingName(reading), rate.row(splitChecks(chk, scenarios)))
	}
	chunks := chunkingSet(n)
	rate := measure(t, "FuzzChunking", chunks, func(t *testing.T, in []byte) {
		args, _, _ := fuzzkit.Decode(in, []byte(nil), []byte(nil), uint8(0))
		fuzztarget.Chunking(t, args[0].([]byte), args[1].([]byte), args[2].(uint8))
	})
	var scenarios []scenario
	for _, in := range chunks {
		args, _, _ := fuzzkit.Decode(in, []byte(nil), []byte(nil), uint8(0))
		if doc := args[0].([]byte); len(doc) <= 4096 {
			cfg, evs := fuzztarget.ChunkedCall(doc, args[1].([]byte), args[2].(uint8))
			scenarios = append(scenarios, scenario{cfg, evs})
		}
	}
	fmt.Fprintf(&report, "| FuzzChunking | - | %s |\n", rate.row(splitChecks(check.Default, scenarios)))
	fmt.Print(report.String())
}

func readingName(r gen.Reading) string {
	return map[gen.Reading]string{gen.Text: "text", gen.Gofuzz: "gofuzz", gen.Machine: "machine"}[r]
}

// gateVsModelSet: the target's seeds of one reading (the corpus files for
// text) and n generated inputs of it: corpus texts with one to three byte
// edits, random gofuzz bytes, random machine bitstreams of the seeds' size.
func gateVsModelSet(t *testing.T, reading gen.Reading, n int) [][]byte {
	var set [][]byte
	for _, s := range gateVsModelSeeds(t) {
		if b := s[0].([]byte); gen.ReadingOf(b) == reading {
			set = append(set, b)
		}
	}
	texts := append([][]byte(nil), set...)
	r := rand.New(rand.NewSource(int64(reading) + 16))
	const edits = " \n\"=@-:0123456789abcdefgikmnoprstuyz{}[],\\"
	for i := 0; i < n; i++ {
		switch reading {
		case gen.Text:
			b := append([]byte(nil), texts[r.Intn(len(texts))]...)
			for k := 1 + r.Intn(3); k > 0 && len(b) > 2; k-- {
				at := 1 + r.Intn(len(b)-1)
				switch r.Intn(3) {
				case 0:
					b[at] = edits[r.Intn(len(edits))]
				case 1:
					b = append(b[:at], b[at+1:]...)
				default:
					b = append(b[:at], append([]byte{edits[r.Intn(len(edits))]}, b[at:]...)...)
				}
			}
			set = append(set, b)
		case gen.Gofuzz:
			b := make([]byte, 64+r.Intn(448))
			r.Read(b)
			b[0] = 0
			set = append(set, b)
		case gen.Machine:
			b := make([]byte, 1+fuzzkit.MachineSeedBytes)
			r.Read(b)
			b[0] = 2
			set = append(set, b)
		}
	}
	return set
}

// chunkingSet: FuzzChunking's seeds and n generated argument lists, each
// encoded as one input (fuzzkit's layout) so that a set is one [][]byte.
func chunkingSet(n int) [][]byte {
	var set [][]byte
	add := func(args ...any) {
		b, err := fuzzkit.Encode(args...)
		if err != nil {
			panic(err)
		}
		set = append(set, b)
	}
	for _, s := range chunkingSeeds() {
		add(s...)
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < n; i++ {
		doc := []byte(gen.Docs[r.Intn(len(gen.Docs))])
		if r.Intn(2) == 0 && len(doc) > 1 {
			doc[r.Intn(len(doc))] = byte(r.Intn(256))
		}
		cuts := make([]byte, 1+r.Intn(8))
		r.Read(cuts)
		add(doc, cuts, uint8(r.Intn(256)))
	}
	return set
}

type rate struct {
	inputs, execs int64
	cpu           time.Duration
}

// measure runs every input of set through run and reads the target's
// count and this process's CPU time around it.
func measure(t *testing.T, target string, set [][]byte, run func(*testing.T, []byte)) rate {
	runtime.GC()
	n0, cpu0 := fuzzkit.Count(target), fuzzkit.ProcessCPU()
	for _, in := range set {
		// Each input in a T of its own, as go fuzz runs it: rapid.MakeFuzz
		// skips an input whose bits run out.
		t.Run("in", func(t *testing.T) { run(t, in) })
	}
	return rate{int64(len(set)), fuzzkit.Count(target) - n0, fuzzkit.ProcessCPU() - cpu0}
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

// threadCPU is this thread's CPU clock (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// TestSamplingZoo measures what sampling the costliest checks
// (fuzztarget.FuzzSample) loses: for every zoo bug, on the text and gofuzz
// sets of TestThroughput (seeds plus N generated inputs each), how many
// scenarios fail every check and how many fail the sampled checker, and
// which check fails first at full fidelity. A measurement, not a check: it
// runs only with SEALGATE_THROUGHPUT=N.
func TestSamplingZoo(t *testing.T) {
	n := throughputInputs(t)
	var scenarios []scenario
	for _, r := range []gen.Reading{gen.Text, gen.Gofuzz} {
		for _, in := range gateVsModelSet(t, r, n) {
			if s, ok := decode(check.Default, in); ok {
				scenarios = append(scenarios, s)
			}
		}
	}
	var report strings.Builder
	fmt.Fprintf(&report, "\n%d scenarios; sampled: determinism and I6 on one in %d\n\n| bug | fail, all checks | fail, sampled | first failing check (all checks) |\n|---|---|---|---|\n", len(scenarios), fuzztarget.FuzzSample)
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
		fmt.Fprintf(&report, "| %s | %d | %d | %v |\n", b.Name, nFull, nSampled, first)
	}
	fmt.Print(report.String())
}

// throughputInputs is SEALGATE_THROUGHPUT, the generated inputs per set;
// the measurements skip without it.
func throughputInputs(t *testing.T) int {
	t.Helper()
	v := os.Getenv(throughputEnv)
	if v == "" {
		t.Skipf("set %s=N (inputs per set) to measure", throughputEnv)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count of inputs", throughputEnv, v)
	}
	return n
}
