package trial

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/replay"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/stdiogate"
)

// GateTest is one `sealfuzz test`: a gate process that speaks the stdio
// protocol, put through the corpus, the state machine and generated
// streams, with every check that applies to the capabilities it claims.
type GateTest struct {
	Argv    []string      // the gate command and its arguments
	Timeout time.Duration // for one answer; 0: stdiogate.DefaultTimeout
	Corpus  string        // Embedded, a folder, or "" for none
	Checks  int           // state-machine runs, one seed each
	// MachineFor bounds the state-machine phase: after it, the run in
	// progress ends the phase (0: no bound).
	MachineFor time.Duration
	Seed       int64         // of the machine and the generated streams
	Budget     time.Duration // for generated streams
	// Streams, when positive, also ends the generated phase after that
	// many streams.
	Streams int
	// Workers checks the corpus and the generated streams that many at a
	// time, each on its own gate process; 0 is runtime.GOMAXPROCS(0).
	Workers int
	Tries   int    // reducer candidates per failure
	Out     string // folder for reduced failures (CHECK.scn), or ""
}

// gateRun is the state of one GateTest run.
type gateRun struct {
	client *stdiogate.Client
	chk    *check.Checker
	argv   []string
	stdout io.Writer
	out    string
	tries  int
	// mu guards what the workers of a phase write: the counts, the
	// failures and stdout.
	mu       sync.Mutex
	streams  map[string]int
	found    map[string]*gateFailure
	order    []string // check IDs, by the first stream that failed each (ordered)
	checks   int      // how many checks apply to the gate
	started  time.Time
	firstHit map[string]time.Duration
	phases   []phaseTime
	cpu      time.Duration // sealfuzz's own CPU time when the test began
}

// phaseTime is one phase of the plan as the summary reports it.
type phaseTime struct {
	name    string
	streams int
	took    time.Duration
}

// gateFailure is the first stream that failed one check, and how many did.
type gateFailure struct {
	phase  string
	index  int // Stream.Index
	source string
	cfg    sealgate.Config
	events []sealgate.Event
	err    error
	count  int
}

// Run runs the test, writing its report to stdout, and returns the exit
// code: 0 for no violation, 1 for violations. An error is a test that
// could not run (no gate, a corpus that does not load).
func (t GateTest) Run(stdout io.Writer) (int, error) {
	g, err := t.run(stdout)
	if err != nil {
		return 0, err
	}
	defer g.client.Close()
	return g.report(), nil
}

// run is Run up to the report: every phase checked, the failures kept in
// the order of their first streams. The caller closes g.client.
func (t GateTest) run(stdout io.Writer) (g *gateRun, err error) {
	if len(t.Argv) == 0 {
		return nil, errors.New("no gate command")
	}
	if t.Budget < 0 || t.Checks < 0 || t.Timeout < 0 || t.Streams < 0 || t.Workers < 0 {
		return nil, errors.New("the budget, the checks, the timeout, the streams and the workers must not be negative")
	}
	workers := t.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	corpus, err := LoadCorpus(t.Corpus)
	if err != nil {
		return nil, err
	}
	client, err := stdiogate.NewClient(t.Argv, t.Timeout)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			client.Close()
		}
	}()
	client.SetConcurrency(workers)
	g = &gateRun{client: client, chk: client.Checker(), argv: t.Argv, stdout: stdout, out: t.Out, tries: t.Tries,
		streams: map[string]int{}, found: map[string]*gateFailure{}, firstHit: map[string]time.Duration{}, started: time.Now(), cpu: fuzzkit.ProcessCPU()}
	if err := g.hello(); err != nil {
		return nil, err
	}
	plan := Plan{Corpus: corpus, Machines: t.Checks, MachineBudget: t.MachineFor, Machine: Hunts(g.chk, uint64(t.Seed)),
		Generate: Bytes(rand.New(rand.NewSource(t.Seed))), Budget: t.Budget, Count: t.Streams, Workers: workers,
		End: func(phase string, n int, took time.Duration) {
			g.phases = append(g.phases, phaseTime{phase, n, took})
			if phase == PhaseMachine && n < t.Checks {
				fmt.Fprintf(g.stdout, "machine: stopped after %d of %d runs, at the %v bound (-machine-for)\n", n, t.Checks, t.MachineFor)
			}
		}}
	plan.Run(g.try)
	g.sortOrder()
	return g, nil
}

// phaseLine is the summary's last line: each phase's streams and time,
// and the CPU time of sealfuzz and of the gate processes, which unlike
// the times does not grow with the load of the machine.
func (g *gateRun) phaseLine(selfCPU time.Duration) string {
	var parts []string
	for _, p := range g.phases {
		part := fmt.Sprintf("%s %d in %v", p.name, p.streams, p.took.Round(time.Millisecond))
		if p.name == PhaseGenerated && p.streams > 0 && p.took > 0 {
			part += fmt.Sprintf(" (%.0f streams/s)", float64(p.streams)/p.took.Seconds())
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		parts = append(parts, "none")
	}
	return fmt.Sprintf("phases: %s; CPU: sealfuzz %v, gate processes %v",
		strings.Join(parts, ", "), selfCPU.Round(time.Millisecond), g.client.CPU().Round(time.Millisecond))
}

// hello opens a run of the generated tool set to print what the gate
// claims and which checks apply.
func (g *gateRun) hello() error {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = gen.Tools()
	s, err := g.client.Open(cfg)
	if err != nil {
		return fmt.Errorf("the gate does not start a run of the generated tools: %w", err)
	}
	caps := s.Capabilities()
	s.(io.Closer).Close()
	fmt.Fprintf(g.stdout, "gate: %s\ncapabilities: %s\nchecks:\n", strings.Join(g.argv, " "), caps)
	var skipped []string
	for _, c := range check.Checks() {
		if !c.Applies(caps) {
			skipped = append(skipped, c.ID)
			continue
		}
		g.checks++
		note := ""
		if c.Partial != nil {
			if p := c.Partial(caps); p != "" {
				note = " (partly: " + p + ")"
			}
		}
		fmt.Fprintf(g.stdout, "  %-5s %s%s\n", c.ID, c.Name, note)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(g.stdout, "not applicable: %s\n", strings.Join(skipped, " "))
	}
	return nil
}

// try checks one stream of the plan and keeps its failure, if any. A
// machine stream comes checked; a corpus file whose configuration the
// format refuses has nothing to run. Workers call it at once.
func (g *gateRun) try(s Stream) bool {
	switch {
	case s.Phase == PhaseMachine:
		g.note(s, s.Err)
	case s.ConfigErr != nil:
	default:
		g.note(s, g.chk.All(s.Config, s.Events))
	}
	return false
}

// note counts a checked stream and keeps its failure (err, or nil for
// none). Of the streams that fail one check, the one kept is the first in
// the plan's order, whichever worker got to it first, so that the report
// does not depend on the scheduling.
func (g *gateRun) note(s Stream, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.streams[s.Phase]++
	if err == nil {
		return
	}
	id := reduce.ID(err)
	nf := &gateFailure{phase: s.Phase, index: s.Index, source: s.Source, cfg: s.Config, events: s.Events, err: err, count: 1}
	if f := g.found[id]; f != nil {
		if nf.before(f) {
			nf.count = f.count + 1
			g.found[id] = nf
		} else {
			f.count++
		}
		return
	}
	g.found[id] = nf
	g.order = append(g.order, id)
	g.firstHit[id] = time.Since(g.started)
	fmt.Fprintf(g.stdout, "found %s after %v (%s)\n", id, g.firstHit[id].Round(time.Millisecond), s.Source)
}

// before says whether f's stream comes before o's in the plan.
func (f *gateFailure) before(o *gateFailure) bool {
	if f.phase != o.phase {
		return phaseRank(f.phase) < phaseRank(o.phase)
	}
	return f.index < o.index
}

// phaseRank is a phase's place in the order Plan.Run runs them.
func phaseRank(phase string) int {
	switch phase {
	case PhaseCorpus:
		return 0
	case PhaseMachine:
		return 1
	}
	return 2
}

// sortOrder orders the failures by the first stream that failed each, as
// one worker would have found them.
func (g *gateRun) sortOrder() {
	sort.SliceStable(g.order, func(i, j int) bool { return g.found[g.order[i]].before(g.found[g.order[j]]) })
}

// report reduces each distinct failure and prints it, then the summary,
// and returns the exit code.
func (g *gateRun) report() int {
	total := 0
	for _, id := range g.order {
		f := g.found[id]
		total += f.count
		fmt.Fprintf(g.stdout, "\nFAIL %s: %d streams, first %s after %v\n", id, f.count, f.source, g.firstHit[id].Round(time.Millisecond))
		if f.events == nil && f.cfg.Tools == nil {
			fmt.Fprintf(g.stdout, "  %v\n", replay.Indent(f.err.Error()))
			continue
		}
		g.reduced(id, f)
	}
	var phases []string
	for p := range g.streams {
		phases = append(phases, p)
	}
	sort.Strings(phases)
	var counts []string
	for _, p := range phases {
		counts = append(counts, fmt.Sprintf("%s %d", p, g.streams[p]))
	}
	held := fmt.Sprintf("all %d checks held", g.checks)
	if len(g.order) > 0 {
		held = fmt.Sprintf("%d of %d checks failed (%s)", len(g.order), g.checks, strings.Join(g.order, " "))
	}
	selfCPU := fuzzkit.ProcessCPU() - g.cpu
	g.client.Close() // every gate process ends, so that its CPU time counts
	fmt.Fprintf(g.stdout, "\ntest: %d violations: %s in %s streams; %d gate processes; %v\n%s\n",
		total, held, strings.Join(counts, ", "), g.client.Spawns(), time.Since(g.started).Round(time.Millisecond), g.phaseLine(selfCPU))
	if total > 0 {
		return 1
	}
	return 0
}

// reduced reduces one failure and prints it: the scenario with the SPEC's
// decisions, and what the gate said.
func (g *gateRun) reduced(id string, f *gateFailure) {
	cfg, evs, err := f.cfg, f.events, f.err
	res, rerr := reduce.Reduce(cfg, evs, g.chk.All, reduce.Options{MaxTries: g.tries})
	if rerr == nil {
		cfg, evs, err = res.Config, res.Events, res.Err
		fmt.Fprintf(g.stdout, "  reduced from %d to %d events in %d tries\n", len(f.events), len(evs), res.Tries)
	} else {
		fmt.Fprintf(g.stdout, "  not reduced: %v\n", rerr)
	}
	fmt.Fprintf(g.stdout, "  %s\n", replay.Indent(err.Error()))
	text := reduce.Text(cfg, evs, err)
	fmt.Fprintf(g.stdout, "  the scenario (expected part: the SPEC's decisions, from the model):\n%s", replay.Indent(text))
	if tr := g.chk.Record(cfg, evs); tr.Err == nil || len(tr.Decisions) > 0 {
		fmt.Fprintf(g.stdout, "  what the gate said:\n%s", replay.Indent(said(tr.Decisions)))
		if tr.Err != nil {
			fmt.Fprintf(g.stdout, "    then: %v\n", tr.Err)
		}
	}
	if g.out != "" {
		if err := writeReduced(g.out, id, text); err != nil {
			fmt.Fprintf(g.stdout, "  not written: %v\n", err)
		}
	}
}

// said is a subject's answer as decision lines, or "(nothing)" when it
// gave none, so that an empty answer is not read as a missing one.
func said(ds []sealgate.Decision) string {
	if len(ds) == 0 {
		return "(nothing)\n"
	}
	return string(scn.FormatDecisions(ds))
}

func writeReduced(dir, id, text string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, reduce.FileName(id)), []byte(text), 0o644)
}
