package main

import (
	"bufio"
	"context"
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

	"github.com/sealgate/sealgate/gen"
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
	elapsed time.Duration
	execs   int64
	newInt  int
	fails   int
	slices  int
}

type failure struct {
	target  string
	input   string // the crasher, moved out of testdata/fuzz
	check   string // the failing check's ID, or the target's own message
	regress string // the reduced scenario written, if any
	note    string
}

func campaignMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sealfuzz", stderr)
	total := fs.Duration("for", 10*time.Minute, "how long the whole campaign runs (e.g. 8h overnight)")
	slice := fs.Duration("slice", 0, "time per target per turn (default: -for / (2 x targets), between 10s and 5m)")
	targets := fs.String("targets", "", "comma-separated fuzz targets (default: every Fuzz* target)")
	workers := fs.Int("workers", 0, "fuzzing workers (default: GOMAXPROCS)")
	dir := fs.String("dir", "", "fuzz only the package in this folder (default: every package of the module with fuzz targets)")
	minimize := fs.Duration("minimize", 5*time.Second, "time go fuzz may spend minimizing each new input; 0 turns it off (go's default, 60s, stalls slow targets; sealfuzz reduces failures itself)")
	regress := fs.String("regress", filepath.Join("corpus", "regress"), "folder for reduced failures")
	stopFirst := fs.Bool("stop", false, "stop at the first failure")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sealfuzz: unexpected argument %q\n%s", fs.Arg(0), usage)
		return 2
	}
	if *total <= 0 {
		fmt.Fprintln(stderr, "sealfuzz: -for must be positive")
		return 2
	}
	seed, err := gen.SeedFromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz: %v\n", err)
		return 2
	}
	c := &campaign{dir: *dir, total: *total, slice: *slice, workers: *workers, regress: *regress, stop: *stopFirst, minimize: *minimize,
		seed: seed, stdout: stdout, stderr: stderr, terminal: isTerminal(stdout), stats: map[string]*targetStats{},
		broken: map[string]bool{}}
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
		names, err := listTargets(ctx, p.bin, p.dir)
		if err != nil {
			return err
		}
		if c.cacheRoot != "" {
			p.cache = filepath.Join(c.cacheRoot, fmt.Sprint(i))
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
	fmt.Fprintf(c.stdout, "fuzzing %s for %v, %v per turn\n", strings.Join(c.targets, ", "), c.total, c.slice)
	deadline := time.Now().Add(c.total)
	for turn := 0; ctx.Err() == nil; turn++ {
		left := time.Until(deadline)
		// A slice too short for go fuzz to gather its baseline coverage
		// ends in "context deadline exceeded", which is no finding.
		if left < minSlice || len(c.broken) == len(c.targets) || c.stop && len(c.fails) > 0 {
			break
		}
		t := c.targets[turn%len(c.targets)]
		if c.broken[t] {
			continue
		}
		if err := c.fuzzSlice(ctx, t, min(c.slice, left), deadline); err != nil {
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

// fuzzCache is where go test keeps a package's generated corpus, so that a
// campaign builds on earlier ones (and `go clean -fuzzcache` clears it).
func fuzzCache(dir string) (string, error) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOCACHE: %v", err)
	}
	abs, _ := filepath.Abs(dir)
	return filepath.Join(strings.TrimSpace(string(out)), "fuzz", "sealfuzz", filepath.Base(abs)), nil
}

// runFuzzer runs a fuzzing test binary in dir, with extra environment,
// handing each line of its output to onLine, and returns how it exited.
func runFuzzer(ctx context.Context, bin, dir string, env, args []string, onLine func(string)) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		onLine(sc.Text())
	}
	return cmd.Wait()
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
	var crasher string
	var seedTarget, seedName string // a generic seed that fails
	var seedInput []byte
	var tail []string // the failure message, for targets we cannot reduce
	var execs int64
	newInt := 0
	lastPrint := time.Time{}
	start := time.Now()
	runErr := runFuzzer(ctx, p.bin, p.dir, nil, args, func(line string) {
		if m := progressRE.FindStringSubmatch(line); m != nil {
			execs, _ = strconv.ParseInt(m[1], 10, 64)
			rate, _ := strconv.Atoi(m[2])
			newInt, _ = strconv.Atoi(m[3])
			c.progress(target, time.Since(start), execs+st.execs, rate, newInt+st.newInt, st.fails, deadline, &lastPrint)
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

func (c *campaign) progress(target string, el time.Duration, execs int64, rate, newInt, fails int, deadline time.Time, last *time.Time) {
	line := fmt.Sprintf("%-34s %8s  execs %-10d %6d/s  new %-5d failures %-3d  (%v left)",
		target, el.Round(time.Second), execs, rate, newInt, len(c.fails), time.Until(deadline).Round(time.Second))
	if c.terminal {
		fmt.Fprintf(c.stdout, "\r%s\x1b[K", line)
		return
	}
	if time.Since(*last) >= 30*time.Second {
		fmt.Fprintln(c.stdout, line)
		*last = time.Now()
	}
}

func (c *campaign) summary() {
	fmt.Fprintln(c.stdout, "\nsummary:")
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "target\ttime\texecs\texecs/s\tnew inputs\tfailures\t")
	for _, t := range c.targets {
		st := c.stats[t]
		if st == nil {
			st = &targetStats{}
		}
		rate := int64(0)
		if s := st.elapsed.Seconds(); s > 0 {
			rate = int64(float64(st.execs) / s)
		}
		fmt.Fprintf(w, "%s\t%v\t%d\t%d\t%d\t%d\t\n", t, st.elapsed.Round(time.Second), st.execs, rate, st.newInt, st.fails)
	}
	w.Flush()
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
