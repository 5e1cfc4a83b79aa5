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
	"strings"
	"time"
)

// Options is a campaign's settings; the zero value of each optional field
// picks its default.
type Options struct {
	Dir     string        // one package to fuzz; "" means every package of the module below the working directory with fuzz targets
	Total   time.Duration // how long the whole campaign runs (build time excluded)
	Slice   time.Duration // time per target per turn; 0: Total / (2 x targets), between 10s and 5m
	Targets []string      // fuzz targets to run; nil: every Fuzz* target
	Workers int           // go fuzz's workers; 0: GOMAXPROCS
	Regress string        // where reduced failures go
	Stop    bool          // stop at the first failure

	Minimize  time.Duration // go fuzz's -fuzzminimizetime (0: off)
	Seed      int64         // SEALGATE_FUZZ_SEED, which picks FuzzGateVsModel's generic seeds
	CacheRoot string        // keep the fuzz caches here, one folder per package, instead of under GOCACHE
	Fixed     bool          // every turn is Slice long (no growing turns)

	Stdout, Stderr io.Writer
}

// Run builds the instrumented test binaries, fuzzes the targets until
// o.Total is up or ctx is done, and prints a summary; it returns the number
// of failures found (each one reduced into o.Regress where it could be).
func Run(ctx context.Context, o Options) (failures int, err error) {
	c := &campaign{dir: o.Dir, total: o.Total, slice: o.Slice, targets: o.Targets, workers: o.Workers, regress: o.Regress,
		stop: o.Stop, minimize: o.Minimize, seed: o.Seed, cacheRoot: o.CacheRoot, fixed: o.Fixed,
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
	dir      string // one package to fuzz; "" means every package of the module with fuzz targets
	total    time.Duration
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
	target  string
	input   string // the crasher, moved out of testdata/fuzz
	check   string // the failing check's ID, or the target's own message
	regress string // the reduced scenario written, if any
	note    string
}

func (c *campaign) run(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "sealfuzz-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c.tmp = tmp
	all, err := c.build(ctx)
	if err != nil {
		return err
	}
	if err := c.plan(all); err != nil {
		return err
	}
	c.rotate(ctx)
	c.summary()
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
// turns' predictions, and says what it chose.
func (c *campaign) plan(all []string) error {
	var err error
	if c.targets, err = pickTargets(all, c.targets); err != nil {
		return err
	}
	if c.slice <= 0 {
		c.slice = min(max(c.total/time.Duration(2*len(c.targets)), 10*time.Second), 5*time.Minute)
	}
	var left []string
	c.targets, left = planTargets(c.targets, c.total, c.slice)
	if len(left) > 0 {
		fmt.Fprintf(c.stdout, "-for %v holds %d slices of %v: fuzzing %d of %d targets; not fuzzed: %s (give -for %v or more, or a shorter -slice, to run them all)\n",
			c.total, len(c.targets), c.slice, len(c.targets), len(c.targets)+len(left), strings.Join(left, ", "),
			c.slice*time.Duration(len(c.targets)+len(left)))
	}
	c.loadGuesses()
	if c.fixed {
		fmt.Fprintf(c.stdout, "fuzzing %s for %v, %v per turn\n", strings.Join(c.targets, ", "), c.total, c.slice)
	} else {
		fmt.Fprintf(c.stdout, "fuzzing %s for %v, turns of %v or %d times the baseline they start with, up to %v\n",
			strings.Join(c.targets, ", "), c.total, c.slice, baselineTurns, max(c.slice, c.total/time.Duration(len(c.targets))))
	}
	return nil
}

// rotate gives the targets their turns, one after the other, until the
// time is up, ctx is done, or no target is left to fuzz.
func (c *campaign) rotate(ctx context.Context) {
	start := time.Now()
	deadline := start.Add(c.total)
	c.report = &reporter{every: progressEvery, now: time.Now, last: start, start: start}
	for turn := 0; ctx.Err() == nil; turn++ {
		left := time.Until(deadline)
		// A slice too short for go fuzz to gather its baseline coverage
		// ends in "context deadline exceeded", which is no finding.
		if len(c.broken) == len(c.targets) || c.stop && len(c.fails) > 0 {
			break
		}
		if left < minSlice && turn >= len(c.targets) {
			break
		}
		t := c.targets[turn%len(c.targets)]
		if c.broken[t] {
			continue
		}
		d := min(c.turnLength(t), left)
		if turn < len(c.targets) {
			// The first turn of each target is whole, even when the
			// slices before it ran over (start-up, baseline coverage):
			// planTargets promised it, and a cut first turn reads as
			// "fuzzed, nothing found".
			d = c.turnLength(t)
		}
		if err := c.fuzzSlice(ctx, t, d, deadline); err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", t, err)
		}
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
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, files, _ := strings.Cut(line, "\t")
		if !hasFuzzTarget(dir, strings.Split(files, ",")) {
			continue
		}
		rel, err := filepath.Rel(wd, dir)
		if err != nil || rel == "." {
			rel = ""
		}
		pkgs = append(pkgs, &fuzzPkg{dir: dir, rel: filepath.ToSlash(rel)})
	}
	if len(pkgs) == 0 {
		return nil, errors.New("no package below the working directory has fuzz targets")
	}
	return pkgs, nil
}

func hasFuzzTarget(dir string, files []string) bool {
	for _, f := range files {
		if f == "" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && strings.Contains(string(b), "\nfunc Fuzz") {
			return true
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

func pickTargets(all, want []string) ([]string, error) {
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
