// Package campaign is the suite's fuzzing campaign: it builds one
// instrumented test binary per package with fuzz targets, rotates the
// targets through time slices until the time is up, re-runs what go fuzz
// added with every check, and turns every new failure into a reduced
// scenario. It drives go test's own fuzzing engine from outside, because
// one go test -fuzz run fuzzes one target and keeps no account of where
// its CPU time goes.
package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options is a campaign's settings; the zero value of each optional field
// picks its default.
type Options struct {
	Dir     string        // one package to fuzz; "" means every package of the module below the working directory with fuzz targets
	Total   time.Duration // how long the whole campaign runs, building included
	Slice   time.Duration // time per target per turn; 0: the fuzzing time / (2 x targets), between 10s and 5m
	Targets []string      // fuzz targets to run; nil: every Fuzz* target (with Planted, the GateTargets)
	Workers int           // go fuzz's workers; 0: GOMAXPROCS
	Regress string        // where reduced failures go
	Stop    bool          // stop at the first failure

	// Planted is the zoo bug SEALGATE_FAULTS plants in the gate under
	// test ("" for none): the campaign then fuzzes only the GateTargets
	// unless Targets names others, and ends with whether it found the bug.
	Planted string

	Minimize  time.Duration // go fuzz's -fuzzminimizetime (0: off)
	Seed      int64         // SEALGATE_FUZZ_SEED, which picks FuzzGateVsModel's generic seeds
	CacheRoot string        // keep the fuzz caches here, one folder per package, instead of under GOCACHE
	Fixed     bool          // every turn is Slice long (no growing turns)

	Stdout, Stderr io.Writer
}

// GateTargets are the fuzz targets whose bodies judge the gate that
// SEALGATE_FAULTS plants a bug in (the others test parsers, decoders and
// the real gate alone), by go test name: a planted-bug campaign fuzzes
// only these unless told otherwise, since time on the others cannot find
// the bug.
var GateTargets = []string{"FuzzGateVsModel"}

// ErrInterrupted is Run's error when ctx ended the campaign before its
// time was up (an interrupt); the summary of what ran was printed.
var ErrInterrupted = errors.New("interrupted")

// Run builds the instrumented test binaries, fuzzes the targets until
// o.Total is up or ctx is done, and prints a summary; it returns the number
// of failures found (each one reduced into o.Regress where it could be),
// and ErrInterrupted when ctx ended it early.
func Run(ctx context.Context, o Options) (failures int, err error) {
	c := &campaign{dir: o.Dir, total: o.Total, slice: o.Slice, targets: o.Targets, workers: o.Workers, regress: o.Regress,
		stop: o.Stop, minimize: o.Minimize, seed: o.Seed, cacheRoot: o.CacheRoot, fixed: o.Fixed, planted: o.Planted,
		stdout: o.Stdout, stderr: o.Stderr, terminal: isTerminal(o.Stdout),
		stats: map[string]*targetStats{}, broken: map[string]bool{}}
	if err := c.run(ctx); err != nil {
		return len(c.fails), err
	}
	return len(c.fails), nil
}

// isTerminal says whether w is a terminal, where progress is one live line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// campaign is one run's settings and everything it has measured so far.
type campaign struct {
	dir      string        // one package to fuzz; "" means every package of the module with fuzz targets
	total    time.Duration // building included
	fuzzing  time.Duration // what building left of total, for the turns
	start    time.Time     // when the campaign started (building is its first part)
	built    time.Duration // wall time building took
	planted  string        // the zoo bug planted in the gate under test, or ""
	slice    time.Duration
	targets  []string
	workers  int
	regress  string // where reduced failures go
	stop     bool   // stop at the first failure
	stdout   io.Writer
	stderr   io.Writer
	terminal bool

	minimize  time.Duration // go fuzz's -fuzzminimizetime (0: off)
	seed      int64         // SEALGATE_FUZZ_SEED, which picks FuzzGateVsModel's generic seeds
	cacheRoot string        // fuzz caches here instead of go's (tests start from nothing)

	report *reporter // progress off a terminal
	fixed  bool      // every turn is -slice long (no growing slices)
	tmp    string    // the campaign's scratch folder (execs files)

	cpu    cpuPhases // CPU time by phase, over the whole campaign
	rerun  rerunStats
	nslice int
	guess  map[string]time.Duration // first baselines predicted from an earlier campaign

	where  map[string]*fuzzPkg // target name -> its package
	stats  map[string]*targetStats
	fails  []failure
	broken map[string]bool // targets that fail on a seed: fuzzing them again would stop at once

	turnWall    time.Duration // wall time of the turns so far, start-up and re-run included
	turnAsked   time.Duration // the fuzz time they were given
	turns       int
	unreached   []string        // planned targets whose first turn no longer fit in the time left
	wrote       map[string]bool // the reduced scenarios this campaign wrote
	interrupted bool            // ctx ended the campaign before its time was up
}

// fuzzPkg is one package with fuzz targets and its instrumented binary.
type fuzzPkg struct {
	dir   string // absolute
	rel   string // for names: "" for the package in the working directory
	bin   string
	cache string
}

type targetStats struct {
	elapsed    time.Duration
	execs      int64 // go fuzz's counter
	bodyExecs  int64 // the body's own count (internal/fuzzkit), all phases
	fuzzExecs  int64 // the body's count after the baseline
	newInt     int
	fails      int
	slices     int
	cpu        cpuPhases
	perBase    time.Duration // the last baseline's wall time per entry
	lastBase   time.Duration // the last baseline's wall time
	nextInputs int           // entries the next baseline will re-run (predicted)
	newEntries int           // entries go fuzz added to the cache
}

type failure struct {
	target    string
	input     string // the crasher, moved out of testdata/fuzz
	check     string // the failing check's ID, or the target's own message
	violation string // the reduced scenario's violation line, when it was reduced
	regress   string // the reduced scenario written, if any
	note      string
	at        time.Duration // since the campaign started
}

func (c *campaign) run(ctx context.Context) error {
	c.start = time.Now()
	tmp, err := os.MkdirTemp("", "sealfuzz-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c.tmp = tmp
	if c.planted != "" {
		cache := "from an empty fuzz cache"
		if c.cacheRoot == "" {
			// An earlier run's cache would hold inputs close to the bug,
			// and its baseline would find it again without fuzzing; the
			// real gate's cache is kept free of a broken gate's inputs.
			c.cacheRoot = filepath.Join(tmp, "cache")
		} else {
			cache = "from the fuzz cache in " + c.cacheRoot
		}
		fmt.Fprintf(c.stdout, "planted bug %s: the corpus seeds that would catch it are left out of FuzzGateVsModel's seeds, so go fuzz has to find it, %s; reduced failures go to %s\n",
			c.planted, cache, c.regress)
	}
	all, err := c.build(ctx)
	c.built = time.Since(c.start)
	if ctx.Err() != nil {
		c.interrupted = true
		fmt.Fprintf(c.stdout, "interrupted after %v, while building: nothing fuzzed\n", c.built.Round(time.Second))
		return ErrInterrupted
	}
	if err != nil {
		return err
	}
	if err := c.plan(all); err != nil {
		return err
	}
	c.rotate(ctx)
	if ctx.Err() != nil {
		c.interrupted = true
	}
	c.summary()
	if c.interrupted {
		return ErrInterrupted
	}
	return nil
}

// build makes each package's instrumented test binary, finds its fuzz
// cache, and returns every target found (named with the package's path).
func (c *campaign) build(ctx context.Context) ([]string, error) {
	pkgs, err := c.packages(ctx)
	if err != nil {
		return nil, err
	}
	c.where = map[string]*fuzzPkg{}
	var all []string
	for i, p := range pkgs {
		names, err := c.buildPackage(ctx, p, filepath.Join(c.tmp, fmt.Sprintf("fuzz%d.test", i)))
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if p.rel != "" {
				n = p.rel + "/" + n
			}
			c.where[n] = p
			all = append(all, n)
		}
	}
	return all, nil
}

// buildPackage builds p's instrumented test binary at bin and returns the
// fuzz targets it has.
func (c *campaign) buildPackage(ctx context.Context, p *fuzzPkg, bin string) ([]string, error) {
	p.bin = bin
	fmt.Fprintf(c.stdout, "building the instrumented test binary (go test -c -fuzz=. in %s)...\n", p.dir)
	build := exec.CommandContext(ctx, "go", "test", "-c", "-fuzz=.", "-o", p.bin, ".")
	build.Dir = p.dir
	build.Stdout, build.Stderr = c.stderr, c.stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build in %s failed: %v", p.dir, err)
	}
	// The go command's CPU time includes the compilers it waited for.
	c.cpu[phaseBuild] += build.ProcessState.UserTime() + build.ProcessState.SystemTime()
	names, err := listTargets(ctx, p.bin, p.dir)
	if err != nil {
		return nil, err
	}
	if c.cacheRoot != "" {
		// By the package's path, so that a cache kept with -cache
		// serves the next campaign whatever packages it picks.
		p.cache = filepath.Join(c.cacheRoot, filepath.FromSlash(p.rel))
	} else if p.cache, err = fuzzCache(p.dir); err != nil {
		return nil, err
	}
	return names, nil
}

// plan picks the targets to run out of all, the slice, and the first
// turns' predictions, and says what it chose. The turns share what
// building left of -for.
func (c *campaign) plan(all []string) error {
	var err error
	if c.targets, err = pickTargets(all, c.targets, c.planted != ""); err != nil {
		return err
	}
	c.fuzzing = c.total - c.built
	if c.fuzzing < minSlice+turnStartup {
		return fmt.Errorf("-for %v is used up by building (%v): give a longer -for", c.total, c.built.Round(time.Second))
	}
	fmt.Fprintf(c.stdout, "built in %v; %v of -for %v left for fuzzing\n", c.built.Round(time.Second), c.fuzzing.Round(time.Second), c.total)
	if c.planted != "" {
		fmt.Fprintf(c.stdout, "planted bug %s: fuzzing %s, the targets that judge the gate (-targets picks others)\n", c.planted, strings.Join(c.targets, ", "))
	}
	if c.slice <= 0 {
		c.slice = min(max(c.fuzzing/time.Duration(2*len(c.targets)), 10*time.Second), 5*time.Minute).Round(time.Second)
		if len(c.targets) == 1 {
			// With nothing to rotate to, a second turn would only pay go
			// fuzz's start-up and baseline again.
			c.slice = min(c.fuzzing, 5*time.Minute).Round(time.Second)
		}
	}
	// A slice longer than the time left would be no turn at all.
	c.slice = max(min(c.slice, (c.fuzzing-turnStartup).Truncate(time.Second)), minSlice)
	var left []string
	// Each turn also pays go fuzz's start-up and the re-run after it.
	c.targets, left = planTargets(c.targets, c.fuzzing, c.slice+turnStartup)
	if len(left) > 0 {
		fmt.Fprintf(c.stdout, "%v of fuzzing holds %d slices of %v: fuzzing %d of %d targets; not fuzzed: %s (give -for %v or more, or a shorter -slice, to run them all)\n",
			c.fuzzing.Round(time.Second), len(c.targets), c.slice, len(c.targets), len(c.targets)+len(left), strings.Join(left, ", "),
			(c.built + (c.slice+turnStartup)*time.Duration(len(c.targets)+len(left))).Round(time.Second))
	}
	c.loadGuesses()
	if c.fixed {
		fmt.Fprintf(c.stdout, "fuzzing %s for %v, %v per turn\n", strings.Join(c.targets, ", "), c.fuzzing.Round(time.Second), c.slice)
	} else {
		fmt.Fprintf(c.stdout, "fuzzing %s for %v, turns of %v or %d times the baseline they start with, up to %v\n",
			strings.Join(c.targets, ", "), c.fuzzing.Round(time.Second), c.slice, baselineTurns, c.fairTurn().Round(time.Second))
	}
	return nil
}

// firstTurnSlack is how much shorter than planned a first turn may be
// and still run rather than leave its target unfuzzed.
const firstTurnSlack = time.Second

// turnStartup is what a turn costs beyond its fuzz time until the
// campaign has measured it: go fuzz starting its workers, and the re-run
// of what the turn added.
const turnStartup = 2 * time.Second

// startup is a turn's measured cost beyond its fuzz time (turnStartup
// before the first turn ends).
func (c *campaign) startup() time.Duration {
	if c.turns == 0 {
		return turnStartup
	}
	return max((c.turnWall-c.turnAsked)/time.Duration(c.turns), 0)
}

// fairTurn is the longest turn: an equal share of the fuzzing time, or
// -slice if longer.
func (c *campaign) fairTurn() time.Duration {
	return max(c.slice, c.fuzzing/time.Duration(max(len(c.targets), 1)))
}

// rotate gives the targets their turns, one after the other, until the
// time is up, ctx is done, or no target is left to fuzz. No turn is
// started that would end after -for: a first turn that no longer fits
// whole is not started (a cut first turn reads as "fuzzed, nothing
// found"), and the summary names its target.
func (c *campaign) rotate(ctx context.Context) {
	deadline := c.start.Add(c.total)
	now := time.Now()
	c.report = &reporter{every: progressEvery, now: time.Now, last: now, start: c.start}
	for turn := 0; ctx.Err() == nil; turn++ {
		if len(c.broken) == len(c.targets) || c.stop && len(c.fails) > 0 {
			break
		}
		// A slice too short for go fuzz to gather its baseline coverage
		// ends in "context deadline exceeded", which is no finding.
		left := time.Until(deadline) - c.startup()
		if left < minSlice {
			if turn < len(c.targets) {
				c.unreached = append(c.unreached, c.targets[turn:]...)
			}
			break
		}
		t := c.targets[turn%len(c.targets)]
		if c.broken[t] {
			continue
		}
		d := c.turnLength(t)
		// The plan's clock started a moment before this one: a first turn
		// short of its length by less than firstTurnSlack still runs.
		if turn > 0 && turn < len(c.targets) && d > left+firstTurnSlack {
			c.unreached = append(c.unreached, c.targets[turn:]...)
			break
		}
		d = min(d, left)
		start := time.Now()
		if err := c.fuzzSlice(ctx, t, d, deadline); err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", t, err)
		}
		c.turns++
		c.turnWall += time.Since(start)
		c.turnAsked += d
	}
}

// packages lists the packages to fuzz: c.dir alone, or every package of
// the module below the working directory whose tests declare a Fuzz target.
func (c *campaign) packages(ctx context.Context) ([]*fuzzPkg, error) {
	if c.dir != "" {
		abs, err := filepath.Abs(c.dir)
		return []*fuzzPkg{{dir: abs}}, err
	}
	out, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}\t{{join .TestGoFiles \",\"}},{{join .XTestGoFiles \",\"}}", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	wd, _ := os.Getwd()
	var pkgs []*fuzzPkg
	want := c.wantedTargets()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, files, _ := strings.Cut(line, "\t")
		if !hasFuzzTarget(dir, strings.Split(files, ","), want) {
			continue
		}
		rel, err := filepath.Rel(wd, dir)
		if err != nil || rel == "." {
			rel = ""
		}
		pkgs = append(pkgs, &fuzzPkg{dir: dir, rel: filepath.ToSlash(rel)})
	}
	if len(pkgs) == 0 && want != nil {
		return nil, fmt.Errorf("no package below the working directory has the fuzz targets %s", strings.Join(want, ", "))
	}
	if len(pkgs) == 0 {
		return nil, errors.New("no package below the working directory has fuzz targets")
	}
	return pkgs, nil
}

// wantedTargets is the go test names of the targets the campaign will
// run, when it knows them before building (-targets, or a planted bug's
// GateTargets); nil when it runs them all.
func (c *campaign) wantedTargets() []string {
	want := c.targets
	if len(want) == 0 && c.planted != "" {
		want = GateTargets
	}
	var names []string
	for _, t := range want {
		t = strings.TrimSpace(t)
		names = append(names, t[strings.LastIndex(t, "/")+1:])
	}
	return names
}

// hasFuzzTarget says whether the test files of dir declare a fuzz target,
// one of want when want is not nil: only those packages are built, since
// building one takes as long as a turn on a loaded machine.
func hasFuzzTarget(dir string, files, want []string) bool {
	for _, f := range files {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		if want == nil && strings.Contains(string(b), "\nfunc Fuzz") {
			return true
		}
		for _, w := range want {
			if strings.Contains(string(b), "\nfunc "+w+"(") {
				return true
			}
		}
	}
	return false
}

// listTargets asks the test binary which fuzz targets it has.
func listTargets(ctx context.Context, bin, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.list", "^Fuzz")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing targets: %v", err)
	}
	var ts []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Fuzz") {
			ts = append(ts, l)
		}
	}
	if len(ts) == 0 {
		return nil, errors.New("the test binary has no Fuzz targets")
	}
	return ts, nil
}

// pickTargets is the targets of all that want names, in want's order;
// with no want, every target, or with a planted bug the GateTargets.
func pickTargets(all, want []string, planted bool) ([]string, error) {
	if len(want) == 0 && planted {
		for _, a := range all {
			if slices.Contains(GateTargets, a[strings.LastIndex(a, "/")+1:]) {
				want = append(want, a)
			}
		}
		if len(want) == 0 {
			return nil, fmt.Errorf("a bug is planted, and none of the targets that judge the gate (%s) is here (have %s): name some with -targets",
				strings.Join(GateTargets, ", "), strings.Join(all, ", "))
		}
	}
	if len(want) == 0 {
		return all, nil
	}
	var out []string
	for _, w := range want {
		w = strings.TrimSpace(w)
		found := false
		for _, a := range all {
			if a == w {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no fuzz target %q (have %s)", w, strings.Join(all, ", "))
		}
		out = append(out, w)
	}
	return out, nil
}

// planTargets keeps the targets that get at least one whole slice in
// total, in order, and returns the rest: a target is never given 0 s.
func planTargets(targets []string, total, slice time.Duration) (run, left []string) {
	fit := int(total / slice)
	if fit >= len(targets) {
		return targets, nil
	}
	fit = max(fit, 1)
	return targets[:fit], targets[fit:]
}
