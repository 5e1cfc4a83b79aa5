package campaign

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSliceLogRecorded reads a recorded go fuzz run (FuzzParse of scn, 10 s,
// GODEBUG=fuzzdebug=1): the baseline of 63 entries, its end, the last
// elapsed, and the 29 minimizations with their summed time.
func TestSliceLogRecorded(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "gofuzz-fuzzdebug-scn.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s sliceLog
	ends := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s.line(sc.Text()) {
			ends++
		}
	}
	if ends != 1 || !s.baselineDone || s.baselineInputs != 63 || s.baselineWall != 0 || s.workers != 2 {
		t.Errorf("baseline: %d ends, %+v; want one end after 63 entries at 0s", ends, s)
	}
	if s.elapsed != 12*time.Second {
		t.Errorf("last elapsed %v, want 12s", s.elapsed)
	}
	// 29 "input minimized" lines summing to 4.890629931s (added by hand).
	if want := 4890629931 * time.Nanosecond; s.minimized != 29 || s.minimizeWall < want-time.Microsecond || s.minimizeWall > want+time.Microsecond {
		t.Errorf("minimized %d in %v, want 29 in %v", s.minimized, s.minimizeWall, want)
	}
}

// TestSliceLogLongBaseline: a baseline that takes time (lines as go fuzz
// 1.26 prints them; the elapsed is rounded to seconds), and one that is cut
// by the slice's end before it completes.
func TestSliceLogLongBaseline(t *testing.T) {
	var s sliceLog
	for _, l := range []string{
		"fuzz: elapsed: 0s, gathering baseline coverage: 0/2210 completed",
		"fuzz: elapsed: 3s, gathering baseline coverage: 400/2210 completed",
		"fuzz: elapsed: 39s, gathering baseline coverage: 2210/2210 completed, now fuzzing with 2 workers",
		"fuzz: elapsed: 42s, execs: 54000 (18000/sec), new interesting: 1 (total: 2211)",
	} {
		s.line(l)
	}
	if !s.baselineDone || s.baselineWall != 39*time.Second || s.baselineInputs != 2210 || s.elapsed != 42*time.Second || s.workers != 2 {
		t.Errorf("%+v: want the baseline of 2210 done at 39s, last elapsed 42s", s)
	}
	var cut sliceLog
	cut.line("fuzz: elapsed: 0s, gathering baseline coverage: 0/2210 completed")
	cut.line("fuzz: elapsed: 30s, gathering baseline coverage: 1800/2210 completed")
	if cut.baselineDone || cut.elapsed != 30*time.Second || cut.baselineRan != 1800 {
		t.Errorf("%+v: a baseline cut short is not done, and ran 1800 entries", cut)
	}
	// The next turn grows to hold the whole baseline the cut one predicts.
	c := &campaign{slice: 10 * time.Second, fuzzing: 10 * time.Minute, targets: []string{"FuzzA"}, stats: map[string]*targetStats{}}
	sl := &slice{c: c, st: &targetStats{nextInputs: 2210}, log: cut, atBaseline: -1}
	c.stats["FuzzA"] = sl.st
	sl.account(nil)
	if d := c.turnLength("FuzzA"); d < 5*time.Minute {
		t.Errorf("after a baseline cut at 1800 of 2210 entries in 30s, the next turn is %v, want 10 x 36.8s capped at 10m", d)
	}
	p := sliceCPU(&cut, 70*time.Second, -1, 60*time.Second, true)
	if p[phaseBaseline] != 60*time.Second || p[phaseFuzz] != 0 || p[phaseCoord] != 10*time.Second {
		t.Errorf("cut baseline split %v: want all 60s of the workers in the baseline, 10s coordinator", p)
	}
}

// TestSliceCPU splits measured CPU: the workers' CPU when the baseline
// ended is the baseline, the minimizations come out of the rest (capped by
// it), the process's CPU beyond the workers' is the coordinator's.
func TestSliceCPU(t *testing.T) {
	s := &sliceLog{baselineDone: true, baselineWall: 10 * time.Second, elapsed: 60 * time.Second, minimizeWall: 5 * time.Second, workers: 2}
	// The workers had 98s of CPU in 2 x 50s of wall time: 98% of a core,
	// so 5s of wall time minimizing is 4.9s of CPU.
	p := sliceCPU(s, 125*time.Second, 20*time.Second, 118*time.Second, true)
	want := cpuPhases{phaseBaseline: 20 * time.Second, phaseMinimize: 4900 * time.Millisecond, phaseFuzz: 93100 * time.Millisecond, phaseCoord: 7 * time.Second}
	if p != want {
		t.Errorf("split %v, want %v", p, want)
	}
	// A loaded machine: 25s of CPU in 2 x 50s, a quarter of a core each.
	if p := sliceCPU(s, 50*time.Second, 20*time.Second, 45*time.Second, true); p[phaseMinimize] != 1250*time.Millisecond {
		t.Errorf("loaded: minimizing %v, want 5s x 1/4", p[phaseMinimize])
	}
	s.minimizeWall = time.Hour
	if p := sliceCPU(s, 125*time.Second, 20*time.Second, 118*time.Second, true); p[phaseMinimize] != 98*time.Second || p[phaseFuzz] != 0 {
		t.Errorf("minimizing beyond the workers' CPU: %v", p)
	}
	// No execs files (a target that does not count): by go fuzz's clock.
	s.minimizeWall = 0
	if p := sliceCPU(s, 60*time.Second, -1, 0, false); p[phaseBaseline] != 10*time.Second || p[phaseFuzz] != 50*time.Second {
		t.Errorf("uncounted split %v: want 10s baseline, 50s fuzzing", p)
	}
	// Counted, but the baseline ended before the first write.
	if p := sliceCPU(s, 60*time.Second, -1, 60*time.Second, true); p[phaseBaseline] != 10*time.Second {
		t.Errorf("early baseline split %v: want 10s by the clock", p)
	}
}

// TestSummaryShare: the summary's one account of the CPU time, labelled,
// with every other phase beside it, and each target's row.
func TestSummaryShare(t *testing.T) {
	var out bytes.Buffer
	c := &campaign{stdout: &out, targets: []string{"FuzzA"}, stats: map[string]*targetStats{}, start: time.Now()}
	st := &targetStats{elapsed: time.Minute, slices: 2, bodyExecs: 9000, fuzzExecs: 8000, execs: 7000, newInt: 3, newEntries: 3}
	st.cpu = cpuPhases{phaseBaseline: 10 * time.Second, phaseFuzz: 80 * time.Second, phaseMinimize: 5 * time.Second, phaseRerun: 5 * time.Second}
	c.stats["FuzzA"] = st
	c.cpu = st.cpu
	c.cpu[phaseBuild] = 100 * time.Second
	c.rerun = rerunStats{entries: 12, runs: 2, wall: 3 * time.Second, cpu: 5 * time.Second}
	c.summary()
	got := out.String()
	for _, want := range []string{
		"CPU time 3m20s: fuzzing new inputs 40.0% (1m20s); the rest: building 50.0% (1m40s), baseline 5.0% (10s), minimizing 2.5% (5s), full-check re-run 2.5% (5s), coordinator 0.0% (0s)",
		"re-run with SEALGATE_CHECKS=full: 12 new inputs in 2 runs, 3s (CPU 5s), 0 failures",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	out.Reset()
	c.rerun = rerunStats{entries: 1, runs: 1, wall: time.Second, cpu: time.Second, fails: 1}
	c.summary()
	if want := "re-run with SEALGATE_CHECKS=full: 1 new input in 1 run, 1s (CPU 1s), 1 failure"; !strings.Contains(out.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, out.String())
	}
	if n := strings.Count(got, "%"); n != 6 {
		t.Errorf("%d shares in the summary, want the one account's 6 (fuzzing and five phases beside it):\n%s", n, got)
	}
	// FuzzA's own row: its own count of execs (not go fuzz's 7000), 100
	// execs per CPU-second fuzzing, 1m40s of CPU, 3 new inputs.
	if !regexpRow(got, "FuzzA", "2", "1m0s", "9000", "100", "1m40s", "3", "0") || regexpRow(got, "FuzzA", "7000") {
		t.Errorf("FuzzA's row is wrong:\n%s", got)
	}
}

func regexpRow(out, name string, cells ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] != name {
			continue
		}
		for _, c := range cells {
			found := false
			for _, x := range f {
				if x == c {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return false
}

// TestNewEntries: the entries of a cache folder that were not there before.
func TestNewEntries(t *testing.T) {
	dir := t.TempDir()
	none, err := cacheEntries(filepath.Join(dir, "FuzzX"))
	if err != nil || len(none) != 0 {
		t.Fatalf("missing folder: %v %v", none, err)
	}
	write := func(n string) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("go test fuzz v1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("012b85ab2bf62ecb")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	before, _ := cacheEntries(dir)
	write("026acbb35126b013")
	write("03d7bd3af8478041")
	after, _ := cacheEntries(dir)
	got := newEntries(before, after)
	if strings.Join(got, ",") != "026acbb35126b013,03d7bd3af8478041" {
		t.Errorf("new entries %v", got)
	}
}

// TestRerunCatchesPlanted: a target whose check is cheap while fuzzing
// passes a planted bug's input; the re-run of the new cache entries with
// SEALGATE_CHECKS=full fails on it, and the campaign collects it as a
// failure, moved out of testdata/fuzz. Without the bug the same re-run
// passes.
func TestRerunCatchesPlanted(t *testing.T) {
	needGo(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "fakechecks"), dir)
	bin := filepath.Join(t.TempDir(), "fake.test")
	build := exec.Command("go", "test", "-c", "-fuzz=.", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cache := t.TempDir()
	entries := filepath.Join(cache, "FuzzCheapCheck")
	os.MkdirAll(entries, 0o755)
	os.WriteFile(filepath.Join(entries, "00000000000000aa"), []byte("go test fuzz v1\n[]byte(\"fine\")\n"), 0o644)
	os.WriteFile(filepath.Join(entries, "00000000000000bb"), []byte("go test fuzz v1\n[]byte(\"bad input\")\n"), 0o644)
	run := func() *campaign {
		var out, errb bytes.Buffer
		c := &campaign{stdout: &out, stderr: &errb, regress: filepath.Join(dir, "regress"), stats: map[string]*targetStats{"FuzzCheapCheck": {}},
			where: map[string]*fuzzPkg{"FuzzCheapCheck": {dir: dir, bin: bin, cache: cache}}}
		if _, err := c.rerunNew(context.Background(), "FuzzCheapCheck", []string{"00000000000000aa", "00000000000000bb"}); err != nil {
			t.Fatalf("re-run: %v", err)
		}
		if c.rerun.entries != 2 || c.rerun.runs != 1 || c.rerun.wall <= 0 {
			t.Errorf("re-run stats %+v: want 2 entries in 1 run", c.rerun)
		}
		return c
	}
	t.Setenv("SEALGATE_FAULTS", "")
	if c := run(); len(c.fails) != 0 {
		t.Errorf("without the planted bug the re-run failed: %+v", c.fails)
	}
	t.Setenv("SEALGATE_FAULTS", "fake-planted")
	c := run()
	if len(c.fails) != 1 || c.rerun.fails != 1 || c.stats["FuzzCheapCheck"].fails != 1 {
		t.Fatalf("the planted bug was not caught once: %+v, %+v", c.fails, c.rerun)
	}
	f := c.fails[0]
	if !strings.Contains(f.input, filepath.Join(".sealfuzz", "crashers", "FuzzCheapCheck", rerunPrefix+"00000000000000bb")) ||
		!strings.Contains(f.note, "SEALGATE_CHECKS=full") {
		t.Errorf("failure %+v: want the bb entry kept under .sealfuzz/crashers, noted as the re-run's", f)
	}
	if b, err := os.ReadFile(f.input); err != nil || !strings.Contains(string(b), "bad input") {
		t.Errorf("kept input: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "testdata")); !os.IsNotExist(err) {
		t.Errorf("the re-run left testdata behind in the package: %v", err)
	}
}

// TestTurnLength: turns stay -slice until a baseline is known, then grow to
// ten times the baseline predicted (time per entry x entries), up to an
// equal share of -for; -fixed keeps them equal. A later campaign's first
// turn is predicted from the time per entry saved beside the cache.
func TestTurnLength(t *testing.T) {
	cache := t.TempDir()
	p := &fuzzPkg{cache: cache}
	c := &campaign{slice: 30 * time.Second, total: 10 * time.Minute, fuzzing: 10 * time.Minute, targets: []string{"FuzzA", "FuzzB"},
		where: map[string]*fuzzPkg{"FuzzA": p, "FuzzB": p}, stats: map[string]*targetStats{}}
	if d := c.turnLength("FuzzA"); d != 30*time.Second {
		t.Errorf("no baseline known: %v, want the slice", d)
	}
	c.stats["FuzzA"] = &targetStats{perBase: 10 * time.Millisecond, nextInputs: 600} // a 6s baseline
	if d := c.turnLength("FuzzA"); d != time.Minute {
		t.Errorf("6s baseline: turn %v, want 1m", d)
	}
	c.stats["FuzzA"].nextInputs = 6000 // 60s: 10 min, capped at 5m
	if d := c.turnLength("FuzzA"); d != 5*time.Minute {
		t.Errorf("60s baseline: turn %v, want the 5m cap", d)
	}
	c.fixed = true
	if d := c.turnLength("FuzzA"); d != 30*time.Second {
		t.Errorf("-fixed: %v", d)
	}
	c.fixed = false
	c.saveBaseline(p, "FuzzB", 4*time.Millisecond)
	c.saveBaseline(p, "FuzzA", 9*time.Millisecond)
	c.saveBaseline(p, "FuzzB", 5*time.Millisecond)
	os.MkdirAll(filepath.Join(cache, "FuzzB"), 0o755)
	for i := 0; i < 1000; i++ {
		os.WriteFile(filepath.Join(cache, "FuzzB", strings.Repeat("0", 12)+strconv.Itoa(1000+i)), nil, 0o644)
	}
	c.loadGuesses()
	if g := c.guess["FuzzB"]; g != 5*time.Second {
		t.Errorf("FuzzB's first baseline predicted %v, want 1000 entries x 5ms (the last one saved)", g)
	}
	if d := c.turnLength("FuzzB"); d != 50*time.Second {
		t.Errorf("FuzzB's first turn %v, want 50s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(cache, baselineFile)); string(b) != "FuzzA 9000000\nFuzzB 5000000\n" {
		t.Errorf("%s holds %q", baselineFile, b)
	}
}
