package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/zoo"
)

// The campaign: build one instrumented test binary, rotate the fuzz targets
// through time slices until the time is up, and turn every new failure into
// a reduced scenario in corpus/regress.

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

const campaignSynopsis = `usage: sealfuzz [flags]

The fuzzing campaign: builds one instrumented test binary per package with fuzz
targets, rotates the targets through time slices until -for is up, and reduces
each new failure into -regress/CHECK.scn. Every target it runs gets at least one
whole slice; with too little time for all of them it says so and runs fewer.
SEALGATE_FAULTS=BUG plants a zoo bug in the gate under test.

` + usage

func campaignMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sealfuzz", campaignSynopsis, stderr)
	total := fs.Duration("for", 10*time.Minute, "how long the whole campaign runs (e.g. 8h overnight)")
	slice := fs.Duration("slice", 0, "time per target per turn (default: -for / (2 x targets), between 10s and 5m)")
	targets := fs.String("targets", "", "comma-separated fuzz targets (default: every Fuzz* target)")
	workers := fs.Int("workers", 0, "fuzzing workers (default: GOMAXPROCS)")
	dir := fs.String("dir", "", "fuzz only the package in this folder (default: every package of the module with fuzz targets)")
	minimize := fs.Duration("minimize", 0, "time go fuzz may spend minimizing each new input (and a failing one); 0, the default, turns it off: minimizing took about half of a campaign's CPU time (docs/campaign.md), and sealfuzz reduces failures itself")
	regress := fs.String("regress", filepath.Join("corpus", "regress"), "folder for reduced failures")
	stopFirst := fs.Bool("stop", false, "stop at the first failure")
	fixed := fs.Bool("fixed", false, "keep every turn -slice long; by default a target's later turns grow so that go fuzz's baseline (re-running its cached corpus) stays under a tenth of the turn")
	cacheDir := fs.String("cache", "", "keep the fuzz cache (go fuzz's generated corpus) in this folder, one subfolder per package (default: under $GOCACHE/fuzz/sealfuzz, keyed by the module root)")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sealfuzz: unexpected argument %q\n%s", fs.Arg(0), usage)
		return 2
	}
	if *total <= 0 {
		fmt.Fprintln(stderr, "sealfuzz: -for must be positive")
		return 2
	}
	seed, err := fuzzkit.SeedFromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz: %v\n", err)
		return 2
	}
	// The fuzz workers and the reducer read SEALGATE_FAULTS themselves; a
	// name they do not know is refused here, before anything is built.
	if _, err := zoo.FromEnv(); err != nil {
		fmt.Fprintf(stderr, "sealfuzz: %v\n", err)
		return 2
	}
	if bug := os.Getenv(zoo.FaultsEnv); bug != "" {
		fmt.Fprintf(stdout, "planted zoo bug %q in the gate under test (%s)\n", bug, zoo.FaultsEnv)
	}
	if !sharedNotice(stdout, stderr) {
		return 2
	}
	c := &campaign{dir: *dir, total: *total, slice: *slice, workers: *workers, regress: *regress, stop: *stopFirst, minimize: *minimize,
		seed: seed, stdout: stdout, stderr: stderr, terminal: isTerminal(stdout), stats: map[string]*targetStats{},
		broken: map[string]bool{}, cacheRoot: *cacheDir, fixed: *fixed}
	if *targets != "" {
		c.targets = strings.Split(*targets, ",")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := c.run(ctx); err != nil {
		fmt.Fprintf(stderr, "sealfuzz: %v\n", err)
		return 1
	}
	if len(c.fails) > 0 {
		return 1
	}
	return 0
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (c *campaign) run(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "sealfuzz-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c.tmp = tmp
	pkgs, err := c.packages(ctx)
	if err != nil {
		return err
	}
	c.where = map[string]*fuzzPkg{}
	var all []string
	for i, p := range pkgs {
		p.bin = filepath.Join(tmp, fmt.Sprintf("fuzz%d.test", i))
		fmt.Fprintf(c.stdout, "building the instrumented test binary (go test -c -fuzz=. in %s)...\n", p.dir)
		build := exec.CommandContext(ctx, "go", "test", "-c", "-fuzz=.", "-o", p.bin, ".")
		build.Dir = p.dir
		build.Stdout, build.Stderr = c.stderr, c.stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build in %s failed: %v", p.dir, err)
		}
		// The go command's CPU time includes the compilers it waited for.
		c.cpu[phaseBuild] += build.ProcessState.UserTime() + build.ProcessState.SystemTime()
		names, err := listTargets(ctx, p.bin, p.dir)
		if err != nil {
			return err
		}
		if c.cacheRoot != "" {
			// By the package's path, so that a cache kept with -cache
			// serves the next campaign whatever packages it picks.
			p.cache = filepath.Join(c.cacheRoot, filepath.FromSlash(p.rel))
		} else if p.cache, err = fuzzCache(p.dir); err != nil {
			return err
		}
		for _, n := range names {
			if p.rel != "" {
				n = p.rel + "/" + n
			}
			c.where[n] = p
			all = append(all, n)
		}
	}
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
	c.summary()
	return nil
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

// fuzzCache is where go test keeps a package's generated corpus, so that a
// campaign builds on earlier ones (and `go clean -fuzzcache` clears it).
func fuzzCache(dir string) (string, error) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOCACHE: %v", err)
	}
	return fuzzCacheIn(strings.TrimSpace(string(out)), dir)
}

// fuzzCacheIn names a package's fuzz cache under gocache: a folder per
// checkout, keyed by a hash of the module root's absolute path (two
// checkouts in folders of the same name must not share a cache), then the
// package's path inside the module.
func fuzzCacheIn(gocache, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := moduleRoot(abs)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	key := filepath.Base(root) + "-" + hex.EncodeToString(sum[:8])
	return filepath.Join(gocache, "fuzz", "sealfuzz", key, rel), nil
}

// runFuzzer runs a fuzzing test binary in dir, with extra environment
// (later entries win), handing each line of its output to onLine, and
// returns how it exited: the state carries its CPU time, which includes the
// go fuzz workers it waited for.
func runFuzzer(ctx context.Context, bin, dir string, env, args []string, onLine func(string)) (*os.ProcessState, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		onLine(sc.Text())
	}
	err = cmd.Wait()
	return cmd.ProcessState, err
}

// minSlice is the shortest turn the campaign gives a target.
const minSlice = 3 * time.Second

var (
	progressRE = regexp.MustCompile(`execs: (\d+) \((\d+)/sec\), new interesting: (\d+)`)
	failedRE   = regexp.MustCompile(`Failing input written to (testdata/fuzz/\S+)`)
)

// fuzzSlice runs one target for d, following its progress.
func (c *campaign) fuzzSlice(ctx context.Context, target string, d time.Duration, deadline time.Time) error {
	st := c.stats[target]
	if st == nil {
		st = &targetStats{}
		c.stats[target] = st
	}
	p := c.where[target]
	name := target[strings.LastIndex(target, "/")+1:]
	args := []string{"-test.run=^$", "-test.fuzz=^" + name + "$", "-test.fuzztime=" + d.String(),
		"-test.fuzzcachedir=" + p.cache}
	if c.minimize >= 0 {
		args = append(args, "-test.fuzzminimizetime="+c.minimize.String())
	}
	if c.workers > 0 {
		args = append(args, "-test.parallel="+strconv.Itoa(c.workers))
	}
	c.nslice++
	execsDir := filepath.Join(c.tmp, "execs", strconv.Itoa(c.nslice))
	if err := os.MkdirAll(execsDir, 0o755); err != nil {
		return err
	}
	before, err := cacheEntries(filepath.Join(p.cache, name))
	if err != nil {
		return err
	}
	// The bodies count their executions and their processes' CPU time into
	// execsDir; fuzzdebug makes go fuzz print each minimization's time.
	env := []string{fuzzkit.ExecsEnv + "=" + execsDir, "GODEBUG=" + withGodebug(os.Getenv("GODEBUG"), "fuzzdebug=1")}
	var slog sliceLog
	atBaseline := time.Duration(-1)
	var execsAtBaseline int64
	var crasher string
	var seedTarget, seedName string // a generic seed that fails
	var seedInput []byte
	var tail []string // the failure message, for targets we cannot reduce
	var execs int64
	newInt := 0
	start := time.Now()
	state, runErr := runFuzzer(ctx, p.bin, p.dir, env, args, func(line string) {
		if slog.line(line) {
			if cpu, n, ok := workerCPU(execsDir, name); ok {
				atBaseline, execsAtBaseline = cpu, n
			}
		}
		if strings.Contains(line, " DEBUG ") {
			return
		}
		if m := progressRE.FindStringSubmatch(line); m != nil {
			execs, _ = strconv.ParseInt(m[1], 10, 64)
			rate, _ := strconv.Atoi(m[2])
			newInt, _ = strconv.Atoi(m[3])
			// The target's own count, live from its workers' files; go
			// fuzz's counter lags them (docs/fuzzing.md), so it is only
			// the fallback for a target that does not count.
			shown := execs + st.execs
			if _, body, ok := workerCPU(execsDir, name); ok {
				shown = body + st.bodyExecs
			}
			c.progress(target, st.elapsed+time.Since(start), shown, rate, newInt+st.newInt, deadline)
		}
		if m := failedRE.FindStringSubmatch(line); m != nil {
			crasher = m[1]
		}
		if t, n, in, ok := genericSeed(line, c.seed); ok {
			seedTarget, seedName, seedInput = t, n, in
		}
		if strings.HasPrefix(strings.TrimSpace(line), "---") || len(tail) > 0 && len(tail) < 40 {
			tail = append(tail, line)
		}
	})
	if c.terminal {
		fmt.Fprintln(c.stdout)
	}
	st.elapsed += time.Since(start)
	st.execs += execs
	st.newInt += newInt
	st.slices++
	c.account(st, target, name, execsDir, &slog, state, atBaseline, execsAtBaseline)
	if ctx.Err() == nil {
		after, err := cacheEntries(filepath.Join(p.cache, name))
		if err != nil {
			return err
		}
		added := newEntries(before, after)
		st.newEntries += len(added)
		st.nextInputs = slog.baselineInputs + len(added)
		cpu, err := c.rerunNew(ctx, target, added)
		st.cpu[phaseRerun] += cpu
		c.cpu[phaseRerun] += cpu
		if err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", target, err)
		}
	}
	if crasher != "" {
		st.fails++
		c.collect(target, p.dir, filepath.Join(p.dir, crasher), strings.Join(tail, "\n"), "")
		return nil
	}
	if seedInput != nil {
		// A generic seed fails (a planted bug, say): keep it as a crasher
		// and reduce it; later turns would stop on it again.
		st.fails++
		c.broken[target] = true
		keep := filepath.Join(p.dir, ".sealfuzz", "crashers", seedTarget, strings.ReplaceAll(seedName, "#", "-"))
		if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(keep, fuzzFile(seedInput), 0o644); err != nil {
			return err
		}
		c.collect(target, p.dir, keep, strings.Join(tail, "\n"),
			"the generic "+seedName+" fails, so the target is not fuzzed again this campaign")
		return nil
	}
	if runErr != nil && ctx.Err() == nil && !strings.Contains(strings.Join(tail, "\n"), "context deadline exceeded") {
		// No new input was written: a seed (corpus/ or testdata/fuzz)
		// fails, so every later turn of this target would stop at once.
		st.fails++
		c.broken[target] = true
		c.fails = append(c.fails, failure{target: target, check: firstLine(strings.Join(tail, "\n")),
			note: fmt.Sprintf("a seed input fails (%v): rerun it with go test -run='^%s$' in %s and fix it first; the target is not fuzzed again this campaign", runErr, name, p.dir)})
	}
	return nil
}

// account adds one slice's CPU time, by phase, and its target-side execs.
func (c *campaign) account(st *targetStats, target, name, execsDir string, slog *sliceLog, state *os.ProcessState, atBaseline time.Duration, execsAtBaseline int64) {
	var proc time.Duration
	if state != nil {
		proc = state.UserTime() + state.SystemTime()
	}
	atEnd, execs, counted := workerCPU(execsDir, name)
	sc := sliceCPU(slog, proc, atBaseline, atEnd, counted)
	st.cpu.add(sc)
	c.cpu.add(sc)
	st.bodyExecs += execs
	if slog.baselineDone {
		st.fuzzExecs += execs - execsAtBaseline
		st.lastBase = slog.baselineWall
		if slog.baselineInputs > 0 {
			st.perBase = slog.baselineWall / time.Duration(slog.baselineInputs)
			if p := c.where[target]; p != nil && slog.baselineWall > 0 {
				c.saveBaseline(p, name, st.perBase)
			}
		}
	} else {
		st.lastBase = slog.elapsed
	}
}

// baselineShare is the most of a turn go fuzz's baseline may take before
// the target's turns grow: its later turns last at least baselineTurns
// times the baseline they will start with.
const baselineTurns = 10

// turnLength is target t's next turn: -slice, or longer when the baseline
// (the last one's time per entry, times the entries the cache has now)
// would take more than a tenth of it. Rotating through the targets in
// equal slices pays each target's whole cached corpus again at every turn,
// and the corpus grows all night; a turn that grows with it keeps that
// re-run a fixed share of the time (docs/campaign.md measures it).
//
// A target's first turn is predicted from the time per entry an earlier
// campaign saved beside the cache (baselineFile), and the entries in the
// cache now. No turn is longer than an equal share of -for (or -slice, if
// longer), so every target still gets its turns.
func (c *campaign) turnLength(t string) time.Duration {
	if c.fixed {
		return c.slice
	}
	var predicted time.Duration
	if st := c.stats[t]; st != nil && st.perBase > 0 {
		predicted = st.perBase * time.Duration(max(st.nextInputs, 1))
	} else if g, ok := c.guess[t]; ok {
		predicted = g
	}
	fair := max(c.slice, c.total/time.Duration(max(len(c.targets), 1)))
	return min(max(c.slice, baselineTurns*predicted), fair)
}

// baselineFile, in a package's fuzz cache folder beside the targets'
// folders (go fuzz reads only those), keeps each target's last baseline
// time per entry: "FuzzName NANOSECONDS" lines.
const baselineFile = "sealfuzz-baseline.txt"

// loadGuesses predicts each target's first baseline from baselineFile and
// the entries its cache has now.
func (c *campaign) loadGuesses() {
	c.guess = map[string]time.Duration{}
	for _, t := range c.targets {
		p := c.where[t]
		name := t[strings.LastIndex(t, "/")+1:]
		b, err := os.ReadFile(filepath.Join(p.cache, baselineFile))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) != 2 || f[0] != name {
				continue
			}
			per, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || per <= 0 {
				continue
			}
			if ents, err := cacheEntries(filepath.Join(p.cache, name)); err == nil {
				c.guess[t] = time.Duration(per) * time.Duration(max(len(ents), 1))
			}
		}
	}
}

// saveBaseline records a target's baseline time per entry for the next
// campaign; a failure to write only loses that prediction.
func (c *campaign) saveBaseline(p *fuzzPkg, name string, per time.Duration) {
	path := filepath.Join(p.cache, baselineFile)
	var keep []string
	if b, err := os.ReadFile(path); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] != name {
				keep = append(keep, l)
			}
		}
	}
	keep = append(keep, fmt.Sprintf("%s %d", name, per.Nanoseconds()))
	if err := os.MkdirAll(p.cache, 0o755); err == nil {
		_ = os.WriteFile(path, []byte(strings.Join(keep, "\n")+"\n"), 0o644)
	}
}

// withGodebug adds a setting to a GODEBUG value.
func withGodebug(cur, setting string) string {
	if cur == "" {
		return setting
	}
	return cur + "," + setting
}

// progress reports one target's totals so far (el and execs both over
// every slice it had). On a terminal it is a live line at go fuzz's own
// pace, with go fuzz's current rate; in a log the reporter prints a line
// every progressEvery with counts and rates over that interval.
func (c *campaign) progress(target string, el time.Duration, execs int64, rate, newInt int, deadline time.Time) {
	if c.terminal {
		fmt.Fprintf(c.stdout, "\r%-34s %8s  execs %-10d %6d/s  new %-5d failures %-3d  fuzzing %2.0f%% of CPU  (%v left)\x1b[K",
			target, el.Round(time.Second), execs, rate, newInt, len(c.fails), c.cpu.share(phaseFuzz), time.Until(deadline).Round(time.Second))
		return
	}
	if c.report == nil {
		return
	}
	if line, ok := c.report.observe(target, execs, newInt, len(c.fails)); ok {
		// The share covers the slices done (their CPU time is known when
		// they end) and the build.
		fmt.Fprintf(c.stdout, "%s; CPU so far %.0f%% fuzzing new inputs, %.0f%% baseline  (%v left)\n", line,
			c.cpu.share(phaseFuzz), c.cpu.share(phaseBaseline), time.Until(deadline).Round(time.Second))
	}
}

// progressEvery is how often a campaign off a terminal reports.
const progressEvery = 30 * time.Second

// reporter turns the running totals of the targets into interval lines:
// each line counts what happened since the previous one and divides by the
// time since the previous one, so counts and rates cover the same interval
// whatever the slices and their boundaries.
type reporter struct {
	every time.Duration
	now   func() time.Time
	start time.Time
	last  time.Time        // when the previous line was printed
	execs map[string]int64 // each target's total at the last observation
	news  map[string]int
	// at the previous line:
	sumExecs int64
	sumNew   int
}

// observe takes a target's totals so far and returns a line when one is due.
func (r *reporter) observe(target string, execs int64, newInputs, fails int) (string, bool) {
	if r.execs == nil {
		r.execs, r.news = map[string]int64{}, map[string]int{}
	}
	r.execs[target], r.news[target] = execs, newInputs
	now := r.now()
	span := now.Sub(r.last)
	if span < r.every {
		return "", false
	}
	var sumExecs int64
	sumNew := 0
	for t, e := range r.execs {
		sumExecs += e
		sumNew += r.news[t]
	}
	dExecs, dNew := sumExecs-r.sumExecs, sumNew-r.sumNew
	r.last, r.sumExecs, r.sumNew = now, sumExecs, sumNew
	return fmt.Sprintf("%8s  last %v: %d execs (%.0f/s), %d new inputs; total %d execs, %d new inputs, %d failures; now %s",
		now.Sub(r.start).Round(time.Second), span.Round(time.Second), dExecs, float64(dExecs)/span.Seconds(), dNew,
		sumExecs, sumNew, fails, target), true
}

// summary prints, per target, the time, the target-side execs (over every
// phase, and per CPU-second while fuzzing new inputs), and the share of its
// CPU time that fuzzed new inputs; then the campaign's CPU time by phase and
// the full-check re-runs.
func (c *campaign) summary() {
	fmt.Fprintln(c.stdout, "\nsummary:")
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "target\ttime\tturns\texecs\tgo fuzz execs\tfuzzing execs/CPU-s\tCPU\tfuzzing\tbaseline\tnew inputs\tnew cache entries\tfailures\t")
	var sum targetStats
	for _, t := range c.targets {
		st := c.stats[t]
		if st == nil {
			st = &targetStats{}
		}
		fmt.Fprintf(w, "%s\t%v\t%d\t%d\t%d\t%.0f\t%v\t%.1f%%\t%.1f%%\t%d\t%d\t%d\t\n", t, st.elapsed.Round(time.Second), st.slices, st.bodyExecs, st.execs,
			perSecond(st.fuzzExecs, st.cpu[phaseFuzz]), st.cpu.total().Round(time.Second), st.cpu.share(phaseFuzz), st.cpu.share(phaseBaseline),
			st.newInt, st.newEntries, st.fails)
		sum.elapsed += st.elapsed
		sum.slices += st.slices
		sum.execs += st.execs
		sum.bodyExecs += st.bodyExecs
		sum.fuzzExecs += st.fuzzExecs
		sum.newInt += st.newInt
		sum.newEntries += st.newEntries
		sum.fails += st.fails
		sum.cpu.add(st.cpu)
	}
	fmt.Fprintf(w, "total\t%v\t%d\t%d\t%d\t%.0f\t%v\t%.1f%%\t%.1f%%\t%d\t%d\t%d\t\n", sum.elapsed.Round(time.Second), sum.slices, sum.bodyExecs, sum.execs,
		perSecond(sum.fuzzExecs, sum.cpu[phaseFuzz]), sum.cpu.total().Round(time.Second), sum.cpu.share(phaseFuzz), sum.cpu.share(phaseBaseline),
		sum.newInt, sum.newEntries, sum.fails)
	w.Flush()
	fmt.Fprintln(c.stdout, c.cpu.line())
	fmt.Fprintf(c.stdout, "re-run with %s=full: %d new cache entries in %d runs, %v (CPU %v), %d failures\n",
		ChecksEnv, c.rerun.entries, c.rerun.runs, c.rerun.wall.Round(100*time.Millisecond), c.rerun.cpu.Round(100*time.Millisecond), c.rerun.fails)
	if len(c.fails) == 0 {
		fmt.Fprintln(c.stdout, "no failures")
		return
	}
	fmt.Fprintf(c.stdout, "%d failures:\n", len(c.fails))
	for _, f := range c.fails {
		fmt.Fprintf(c.stdout, "  %s: %s\n", f.target, f.check)
		if f.input != "" {
			fmt.Fprintf(c.stdout, "    input:   %s\n", f.input)
		}
		if f.regress != "" {
			fmt.Fprintf(c.stdout, "    reduced: %s\n", f.regress)
		}
		if f.note != "" {
			fmt.Fprintf(c.stdout, "    %s\n", f.note)
		}
	}
}

// perSecond is n per second of d, or 0 without time.
func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
