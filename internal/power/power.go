// Package power is the engine of sealfuzz power, an Etna-style benchmark of
// the suite's detection power: for every bug of the zoo and every technique
// it measures how often the bug is found, how fast, and how small the
// reduced counterexample is, so that a claim about a technique is a number.
package power

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/campaign"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/trial"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/scn"
)

type powerRun struct {
	bug, tech string
	seed      int
	found     bool
	inSeeds   bool // gofuzz: a generic seed input failed, before any mutation
	after     time.Duration
	events    int    // reduced counterexample length
	check     string // failing check
	execs     int64  // gofuzz: inputs run, as go fuzz last reported
	note      string // why a failure did not count
}

type power struct {
	seeds     int
	fuzzSeeds int
	checks    int
	fuzzCap   time.Duration
	fuzzMin   time.Duration
	techs     map[string]bool
	bugs      []zoo.Bug
	out       string
	note      string // a line under the table (where and how it ran)
	stdout    io.Writer
	stderr    io.Writer
	runs      []powerRun
	planned   int // runs in all, for progress
	start     time.Time
	root      string
	fuzzBin   string
	scenario  []*scn.Scenario
}

// Techniques are the techniques Run measures, by name.
var Techniques = []string{"rapid", "gofuzz", "corpus"}

// Options is what one measurement covers.
type Options struct {
	Seeds      int           // runs per bug and randomized technique
	FuzzSeeds  int           // go fuzz runs per bug (0: Seeds)
	Checks     int           // rapid runs per seed
	FuzzCap    time.Duration // time cap of one go fuzz run
	FuzzMin    time.Duration // go fuzz's -fuzzminimizetime
	Techniques []string      // of "rapid", "gofuzz", "corpus"
	Bugs       []zoo.Bug     // nil: the whole zoo
	Out        string        // folder for power.md and power.png
	Note       string        // a line under the table (where and how it ran)
}

// Run measures every bug of o under every technique of o, prints the table
// to stdout and writes power.md and power.png into o.Out. An unknown
// technique is an error before anything runs.
func Run(ctx context.Context, o Options, stdout, stderr io.Writer) error {
	if o.FuzzSeeds <= 0 {
		o.FuzzSeeds = o.Seeds
	}
	p := &power{seeds: o.Seeds, fuzzSeeds: o.FuzzSeeds, checks: o.Checks, fuzzCap: o.FuzzCap, fuzzMin: o.FuzzMin,
		techs: map[string]bool{}, bugs: o.Bugs, out: o.Out, note: o.Note, stdout: stdout, stderr: stderr, root: "."}
	for _, t := range o.Techniques {
		if !slices.Contains(Techniques, t) {
			return fmt.Errorf("unknown technique %q (want one of %v)", t, Techniques)
		}
		p.techs[t] = true
	}
	if p.bugs == nil {
		p.bugs = zoo.All
	}
	return p.run(ctx)
}

func (p *power) run(ctx context.Context) error {
	if p.techs["corpus"] {
		if err := p.loadCorpus(); err != nil {
			return err
		}
	}
	if p.techs["gofuzz"] {
		tmp, err := os.MkdirTemp("", "sealfuzz-power-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		p.fuzzBin = filepath.Join(tmp, "fuzz.test")
		// go fuzz writes found inputs under testdata/fuzz; fuzzRun removes
		// each, and the folders go too unless they were there before.
		for _, d := range []string{"testdata", filepath.Join("testdata", "fuzz"), filepath.Join("testdata", "fuzz", "FuzzGateVsModel")} {
			if _, err := os.Stat(filepath.Join(p.root, d)); err != nil {
				defer os.Remove(filepath.Join(p.root, d)) // deepest first; only if empty
			}
		}
		fmt.Fprintln(p.stdout, "building the instrumented test binary...")
		build := exec.CommandContext(ctx, "go", "test", "-c", "-fuzz=.", "-o", p.fuzzBin, ".")
		build.Stdout, build.Stderr = p.stderr, p.stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build: %v", err)
		}
	}
	p.start = time.Now()
	if p.techs["corpus"] {
		p.planned += len(p.bugs)
	}
	if p.techs["rapid"] {
		p.planned += len(p.bugs) * p.seeds
	}
	if p.techs["gofuzz"] {
		p.planned += len(p.bugs) * p.fuzzSeeds
	}
	for _, b := range p.bugs {
		if p.techs["corpus"] {
			p.record(p.corpusRun(b))
		}
		for seed := 1; seed <= max(p.seeds, p.fuzzSeeds) && ctx.Err() == nil; seed++ {
			if p.techs["rapid"] && seed <= p.seeds {
				p.record(p.rapidRun(b, seed))
			}
			if p.techs["gofuzz"] && seed <= p.fuzzSeeds {
				p.record(p.fuzzRun(ctx, b, seed))
			}
		}
	}
	if err := os.MkdirAll(p.out, 0o755); err != nil {
		return err
	}
	table := p.table()
	if err := os.WriteFile(filepath.Join(p.out, "power.md"), []byte(table), 0o644); err != nil {
		return err
	}
	if err := p.chart(filepath.Join(p.out, "power.png")); err != nil {
		return err
	}
	fmt.Fprintf(p.stdout, "\n%s\nwrote %s and %s\n", table, filepath.Join(p.out, "power.md"), filepath.Join(p.out, "power.png"))
	return nil
}

func (p *power) record(r powerRun) {
	p.runs = append(p.runs, r)
	status := "missed"
	if r.found {
		status = fmt.Sprintf("found in %v, reduced to %d events (%s)", r.after.Round(time.Millisecond), r.events, r.check)
		if r.inSeeds {
			status += ", by a generic seed"
		}
	}
	if r.note != "" {
		status += ": " + r.note
	}
	if r.tech == "gofuzz" {
		status += fmt.Sprintf(" [%d execs]", r.execs)
	}
	fmt.Fprintf(p.stdout, "[%d/%d %v] %-26s %-7s seed %-3d %s\n", len(p.runs), p.planned, time.Since(p.start).Round(time.Second), r.bug, r.tech, r.seed, status)
}

const notReproduced = "not reproducible by check.All"

// reduced shrinks a counterexample with the bug's checker and reports its
// length and check.
func reduced(b zoo.Bug, cfg sealgate.Config, evs []sealgate.Event) (int, string) {
	res, err := reduce.Reduce(cfg, evs, b.Checker().All, reduce.Options{MaxTries: 5000})
	if err != nil {
		return len(evs), notReproduced
	}
	return len(res.Events), reduce.ID(res.Err)
}

func (p *power) rapidRun(b zoo.Bug, seed int) powerRun {
	r := powerRun{bug: b.Name, tech: "rapid", seed: seed}
	s, err := trial.Hunt(b.Checker(), uint64(seed), p.checks)
	if err != nil || s.Err == nil {
		return r
	}
	r.found, r.after = true, s.Took
	r.events, r.check = reduced(b, s.Config, s.Events)
	return r
}

func (p *power) loadCorpus() error {
	var err error
	p.scenario, err = trial.LoadCorpus(trial.Embedded)
	return err
}

// corpusRun replays the corpus in file order with the bug in the gate;
// it is deterministic, so it runs once.
func (p *power) corpusRun(b zoo.Bug) powerRun {
	r := powerRun{bug: b.Name, tech: "corpus", seed: 0}
	chk := b.Checker()
	start := time.Now()
	trial.Plan{Corpus: p.scenario}.Run(func(s trial.Stream) bool {
		res := chk.RunScenario(s.Scenario)
		if res.GateErr == nil && check.Compare("expected", s.Scenario.Expect, "gate", res.Gate) == nil {
			return false
		}
		r.found, r.after = true, time.Since(start)
		if s.ConfigErr == nil {
			r.events, r.check = reduced(b, s.Config, s.Events)
		}
		return true
	})
	return r
}

// fuzzRun runs go fuzz on FuzzGateVsModel with the bug planted (by
// environment, for the fuzz workers), from an empty cache, until the first
// failure or the cap. go fuzz cannot be seeded (its mutator seeds itself
// from the clock), so the run's seed picks the target's generic seed
// inputs instead (SEALGATE_FUZZ_SEED). A failure is either an input go
// fuzz found and wrote under testdata/fuzz (read back, then removed), or
// one of the generic seeds failing while go fuzz gathers its baseline
// (rebuilt with fuzzkit.Seeds); either is decoded and reduced with the bug's
// checker.
func (p *power) fuzzRun(ctx context.Context, b zoo.Bug, seed int) powerRun {
	r := powerRun{bug: b.Name, tech: "gofuzz", seed: seed}
	cache, err := os.MkdirTemp("", "sealfuzz-cache-")
	if err != nil {
		return r
	}
	defer os.RemoveAll(cache)
	var crasher, msg string // msg: the first line of the failure go fuzz printed
	var seedInput []byte
	failing := false
	start := time.Now()
	last := start
	env := []string{zoo.FaultsEnv + "=" + b.Name, fuzzkit.SeedEnv + "=" + strconv.Itoa(seed)}
	_, _ = campaign.RunFuzzer(ctx, p.fuzzBin, p.root, env, []string{"-test.run=^$",
		"-test.fuzz=^FuzzGateVsModel$", "-test.fuzztime=" + p.fuzzCap.String(), "-test.fuzzcachedir=" + cache,
		"-test.fuzzminimizetime=" + p.fuzzMin.String()}, func(line string) {
		if m := campaign.ProgressRE.FindStringSubmatch(line); m != nil {
			r.execs, _ = strconv.ParseInt(m[1], 10, 64)
			if time.Since(last) >= 20*time.Second {
				last = time.Now()
				fmt.Fprintf(p.stdout, "    %s gofuzz seed %d: %v, %d execs (%s/s), no failure yet\n", b.Name, seed, time.Since(start).Round(time.Second), r.execs, m[2])
			}
		}
		_, _, in, isSeed := campaign.GenericSeed(line, int64(seed))
		if isSeed {
			seedInput, r.inSeeds = in, true
		}
		if !r.found && (isSeed || strings.Contains(line, "minimizing") && strings.Contains(line, "failing input") || strings.HasPrefix(strings.TrimSpace(line), "--- FAIL")) {
			r.found, r.after = true, time.Since(start)
		}
		if m := campaign.FailedRE.FindStringSubmatch(line); m != nil {
			crasher = filepath.Join(p.root, m[1])
		}
		switch l := strings.TrimSpace(line); {
		case strings.HasPrefix(l, "--- FAIL"):
			failing = true
		case failing && msg == "" && l != "" && !strings.Contains(l, "[rapid] draw"):
			msg = l
		}
	})
	var args []any
	switch {
	case crasher != "":
		defer os.Remove(crasher)
		src, err := os.ReadFile(crasher)
		if err != nil {
			return r
		}
		if args, err = fuzzkit.ParseFuzzFile(src); err != nil {
			return r
		}
	case seedInput != nil:
		args = []any{seedInput}
	default:
		r.found = false
		return r
	}
	// Only a failure that the decoded scenario shows again counts.
	cfg, evs, err := campaign.FuzzScenario("FuzzGateVsModel", args, b.Checker())
	if err != nil {
		r.found, r.note = false, fmt.Sprintf("go fuzz failed after %v (%s), but its input is not decoded: %v", r.after.Round(time.Millisecond), msg, err)
		return r
	}
	r.events, r.check = reduced(b, cfg, evs)
	if r.check == notReproduced {
		r.found, r.note = false, fmt.Sprintf("go fuzz failed after %v (%s), but its input (%d events) passes check.All", r.after.Round(time.Millisecond), msg, len(evs))
	}
	return r
}

type stat struct {
	runs, found     int
	inSeeds         int // found by a generic seed, before any mutation (gofuzz)
	median, maximum time.Duration
	events          int // median reduced length
}

func (p *power) stats(bug, tech string) (stat, bool) {
	var s stat
	var times []time.Duration
	var lens []int
	for _, r := range p.runs {
		if r.bug != bug || r.tech != tech {
			continue
		}
		s.runs++
		if r.found {
			s.found++
			if r.inSeeds {
				s.inSeeds++
			}
			times = append(times, r.after)
			lens = append(lens, r.events)
		}
	}
	if s.runs == 0 {
		return s, false
	}
	if len(times) > 0 {
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		sort.Ints(lens)
		s.median, s.maximum, s.events = times[len(times)/2], times[len(times)-1], lens[len(lens)/2]
	}
	return s, true
}

func (p *power) table() string {
	var b strings.Builder
	techs := []string{"rapid", "gofuzz", "corpus"}
	fmt.Fprintf(&b, "| bug | pattern | findings |")
	for _, t := range techs {
		switch {
		case t == "gofuzz" && p.techs[t]:
			fmt.Fprintf(&b, " %s: found | by a seed | median | max | events |", t)
		case p.techs[t]:
			fmt.Fprintf(&b, " %s: found | median | max | events |", t)
		}
	}
	b.WriteString("\n|---|---|---|")
	for _, t := range techs {
		switch {
		case t == "gofuzz" && p.techs[t]:
			b.WriteString("---|---|---|---|---|")
		case p.techs[t]:
			b.WriteString("---|---|---|---|")
		}
	}
	b.WriteString("\n")
	for _, bug := range p.bugs {
		fmt.Fprintf(&b, "| %s | %s | %s |", bug.Name, bug.Pattern, bug.Findings)
		for _, t := range techs {
			if !p.techs[t] {
				continue
			}
			s, _ := p.stats(bug.Name, t)
			fmt.Fprintf(&b, " %d/%d |", s.found, s.runs)
			if t == "gofuzz" {
				fmt.Fprintf(&b, " %d |", s.inSeeds)
			}
			if s.found == 0 {
				b.WriteString(" – | – | – |")
				continue
			}
			fmt.Fprintf(&b, " %s | %s | %d |", short(s.median), short(s.maximum), s.events)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nrapid: %d seeds × %d runs (`machine.Hunt`, no shrinking). "+
		"gofuzz: %d runs of FuzzGateVsModel per bug (run i: SEALGATE_FUZZ_SEED=i picks the generic seed inputs; go fuzz itself cannot be seeded), "+
		"each from an empty cache, capped at %v, %d workers, -fuzzminimizetime=%v; time includes process start and the seed corpus; "+
		"by a seed: runs in which one of the generic seeds (`fuzzkit.Seeds`: random gofuzz-reading bytes, random machine-reading bitstreams) failed before any mutation. "+
		"corpus: one deterministic replay in file order. "+
		"events: median length of the counterexample after `reduce`.\n",
		p.seeds, p.checks, p.fuzzSeeds, p.fuzzCap, runtime.GOMAXPROCS(0), p.fuzzMin)
	if p.note != "" {
		fmt.Fprintf(&b, "\n%s\n", p.note)
	}
	return b.String()
}

func short(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
