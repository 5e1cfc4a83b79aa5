package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// minSlice is the shortest turn the campaign gives a target.
const minSlice = 3 * time.Second

// ProgressRE and FailedRE match go fuzz's progress line (execs, their
// rate, new interesting inputs) and its report of a failing input written.
var (
	ProgressRE = regexp.MustCompile(`execs: (\d+) \((\d+)/sec\), new interesting: (\d+)`)
	FailedRE   = regexp.MustCompile(`Failing input written to (testdata/fuzz/\S+)`)
)

// slice is one turn of one target: what it runs, and what go fuzz's output
// said while it ran. Its steps are fuzzSlice's, in order.
type slice struct {
	c        *campaign
	target   string // as the campaign names it, with its package's path
	name     string // its go test name
	p        *fuzzPkg
	st       *targetStats
	d        time.Duration
	deadline time.Time
	execsDir string    // where the bodies count their executions and CPU time
	started  time.Time // when the fuzz process started

	log             sliceLog
	atBaseline      time.Duration // the workers' CPU when the baseline ended (-1: not seen)
	execsAtBaseline int64         // their executions then
	execs           int64         // go fuzz's counter
	newInt          int           // go fuzz's new interesting inputs
	crasher         string        // the failing input go fuzz wrote, under testdata/fuzz
	seed            failingSeed   // a generic seed that fails
	tail            []string      // the failure message, for targets we cannot reduce
}

// failingSeed is one of FuzzGateVsModel's generic seeds that go fuzz
// reported failing (input nil: none).
type failingSeed struct {
	target, name string
	input        []byte
}

// fuzzSlice runs one target for d, following its progress, then re-runs
// what go fuzz added with every check and collects what failed.
func (c *campaign) fuzzSlice(ctx context.Context, target string, d time.Duration, deadline time.Time) error {
	s, err := c.newSlice(target, d, deadline)
	if err != nil {
		return err
	}
	before, err := cacheEntries(s.cacheDir())
	if err != nil {
		return err
	}
	s.started = time.Now()
	state, runErr := RunFuzzer(ctx, s.p.bin, s.p.dir, s.env(), s.args(), s.line)
	if c.terminal {
		fmt.Fprintln(c.stdout)
	}
	s.st.elapsed += time.Since(s.started)
	s.account(state)
	if err := s.rerunAdded(ctx, before); err != nil {
		return err
	}
	return s.collectFailure(ctx, runErr)
}

// newSlice prepares target's turn: its stats and its execs folder.
func (c *campaign) newSlice(target string, d time.Duration, deadline time.Time) (*slice, error) {
	st := c.stats[target]
	if st == nil {
		st = &targetStats{}
		c.stats[target] = st
	}
	c.nslice++
	s := &slice{c: c, target: target, name: target[strings.LastIndex(target, "/")+1:], p: c.where[target], st: st,
		d: d, deadline: deadline, execsDir: filepath.Join(c.tmp, "execs", strconv.Itoa(c.nslice)), atBaseline: -1}
	if err := os.MkdirAll(s.execsDir, 0o755); err != nil {
		return nil, err
	}
	return s, nil
}

// cacheDir is the target's folder in its package's fuzz cache.
func (s *slice) cacheDir() string { return filepath.Join(s.p.cache, s.name) }

// args are the test binary's flags: fuzz this one target for d.
func (s *slice) args() []string {
	args := []string{"-test.run=^$", "-test.fuzz=^" + s.name + "$", "-test.fuzztime=" + s.d.String(),
		"-test.fuzzcachedir=" + s.p.cache}
	if s.c.minimize >= 0 {
		args = append(args, "-test.fuzzminimizetime="+s.c.minimize.String())
	}
	if s.c.workers > 0 {
		args = append(args, "-test.parallel="+strconv.Itoa(s.c.workers))
	}
	return args
}

// env makes the bodies count their executions and their processes' CPU time
// into execsDir; fuzzdebug makes go fuzz print each minimization's time.
func (s *slice) env() []string {
	return []string{fuzzkit.ExecsEnv + "=" + s.execsDir, "GODEBUG=" + withGodebug(os.Getenv("GODEBUG"), "fuzzdebug=1")}
}

// line takes one line of go fuzz's output.
func (s *slice) line(line string) {
	if s.log.line(line) {
		if cpu, n, ok := workerCPU(s.execsDir, s.name); ok {
			s.atBaseline, s.execsAtBaseline = cpu, n
		}
	}
	if strings.Contains(line, " DEBUG ") {
		return
	}
	if m := ProgressRE.FindStringSubmatch(line); m != nil {
		s.progress(m)
	}
	if m := FailedRE.FindStringSubmatch(line); m != nil {
		s.crasher = m[1]
	}
	if t, n, in, ok := GenericSeed(line, s.c.seed); ok {
		s.seed = failingSeed{t, n, in}
	}
	if strings.HasPrefix(strings.TrimSpace(line), "---") || len(s.tail) > 0 && len(s.tail) < 40 {
		s.tail = append(s.tail, line)
	}
}

// progress takes go fuzz's progress line (ProgressRE's match m) and
// reports the target's totals so far.
func (s *slice) progress(m []string) {
	s.execs, _ = strconv.ParseInt(m[1], 10, 64)
	rate, _ := strconv.Atoi(m[2])
	s.newInt, _ = strconv.Atoi(m[3])
	// The target's own count, live from its workers' files; go fuzz's
	// counter lags them (docs/research/fuzzing.md), so it is only the fallback for
	// a target that does not count.
	shown := s.execs + s.st.execs
	var live cpuPhases
	if cpu, body, ok := workerCPU(s.execsDir, s.name); ok {
		shown = body + s.st.bodyExecs
		live = sliceCPU(&s.log, cpu, s.atBaseline, cpu, true)
	}
	s.c.progress(s.target, s.st.elapsed+time.Since(s.started), shown, rate, s.newInt+s.st.newInt, s.deadline, live)
}

// account adds the slice's counts, its CPU time by phase, and its
// target-side execs to the target's and the campaign's.
func (s *slice) account(state *os.ProcessState) {
	st := s.st
	st.execs += s.execs
	st.newInt += s.newInt
	st.slices++
	var proc time.Duration
	if state != nil {
		proc = state.UserTime() + state.SystemTime()
	}
	atEnd, execs, counted := workerCPU(s.execsDir, s.name)
	sc := sliceCPU(&s.log, proc, s.atBaseline, atEnd, counted)
	st.cpu.add(sc)
	s.c.cpu.add(sc)
	st.bodyExecs += execs
	if !s.log.baselineDone {
		st.lastBase = s.log.elapsed
		if s.log.baselineRan > 0 && s.log.elapsed > 0 {
			// The turn ended inside the baseline: the entries re-run so
			// far predict the whole, so that the next turn grows to hold it.
			st.perBase = s.log.elapsed / time.Duration(s.log.baselineRan)
		}
		return
	}
	st.fuzzExecs += execs - s.execsAtBaseline
	st.lastBase = s.log.baselineWall
	if s.log.baselineInputs > 0 {
		st.perBase = s.log.baselineWall / time.Duration(s.log.baselineInputs)
		if s.p != nil && s.log.baselineWall > 0 {
			s.c.saveBaseline(s.p, s.name, st.perBase)
		}
	}
}

// rerunAdded counts the entries go fuzz added to the cache during the
// slice (the names absent from before) and, unless the campaign was
// interrupted, re-runs them with every check.
func (s *slice) rerunAdded(ctx context.Context, before map[string]bool) error {
	after, err := cacheEntries(s.cacheDir())
	if err != nil {
		return err
	}
	added := newEntries(before, after)
	s.st.newEntries += len(added)
	s.st.nextInputs = s.log.baselineInputs + len(added)
	if ctx.Err() != nil {
		return nil // interrupted: the new inputs are counted, not re-run
	}
	cpu, err := s.c.rerunNew(ctx, s.target, added)
	s.st.cpu[phaseRerun] += cpu
	s.c.cpu[phaseRerun] += cpu
	if err != nil {
		fmt.Fprintf(s.c.stderr, "%s: %v\n", s.target, err)
	}
	return nil
}

// collectFailure turns what failed in the slice into a failure of the
// campaign: the input go fuzz wrote, a failing generic seed, or a seed
// that fails with no input written.
func (s *slice) collectFailure(ctx context.Context, runErr error) error {
	message := strings.Join(s.tail, "\n")
	switch {
	case s.crasher != "":
		s.st.fails++
		s.c.collect(s.target, s.p.dir, filepath.Join(s.p.dir, s.crasher), message, "")
	case s.seed.input != nil:
		return s.keepFailingSeed(message)
	case runErr != nil && ctx.Err() == nil && !strings.Contains(message, "context deadline exceeded") && !strings.Contains(message, "context canceled"):
		// No new input was written: a seed (corpus/ or testdata/fuzz)
		// fails, so every later turn of this target would stop at once.
		s.st.fails++
		s.c.broken[s.target] = true
		s.c.fails = append(s.c.fails, failure{target: s.target, check: FirstLine(message), at: time.Since(s.c.start),
			note: fmt.Sprintf("a seed input fails (%v): rerun it with go test -run='^%s$' in %s and fix it first; the target is not fuzzed again this campaign", runErr, s.name, s.p.dir)})
	}
	return nil
}

// keepFailingSeed keeps a failing generic seed (a planted bug, say) as a
// crasher and reduces it; later turns would stop on it again, so the
// target is not fuzzed again.
func (s *slice) keepFailingSeed(message string) error {
	s.st.fails++
	s.c.broken[s.target] = true
	keep := filepath.Join(s.p.dir, ".sealfuzz", "crashers", s.seed.target, strings.ReplaceAll(s.seed.name, "#", "-"))
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(keep, FuzzFile(s.seed.input), 0o644); err != nil {
		return err
	}
	s.c.collect(s.target, s.p.dir, keep, message,
		"the generic "+s.seed.name+" fails, so the target is not fuzzed again this campaign")
	return nil
}
