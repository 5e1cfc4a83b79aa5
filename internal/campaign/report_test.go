package campaign

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sealgate/sealgate/internal/zoo"
)

// fakeCampaign is a campaign that ran: two targets, one of which does not
// count its own runs, and what the summary is made from.
func fakeCampaign(out *bytes.Buffer) *campaign {
	c := &campaign{stdout: out, targets: []string{"FuzzGateVsModel", "wire/FuzzUncounted"}, stats: map[string]*targetStats{},
		start: time.Now().Add(-2 * time.Minute), built: 20 * time.Second}
	c.stats["FuzzGateVsModel"] = &targetStats{elapsed: 70 * time.Second, slices: 2, bodyExecs: 90000, execs: 85000, fuzzExecs: 80000,
		newEntries: 4, cpu: cpuPhases{phaseFuzz: 100 * time.Second, phaseBaseline: 10 * time.Second}}
	c.stats["wire/FuzzUncounted"] = &targetStats{elapsed: 30 * time.Second, slices: 1, execs: 16592, newEntries: 1,
		cpu: cpuPhases{phaseFuzz: 50 * time.Second, phaseBaseline: 5 * time.Second}}
	c.cpu[phaseBuild] = 40 * time.Second
	for _, st := range c.stats {
		c.cpu.add(st.cpu)
	}
	return c
}

// TestSummaryFormat: one row per target with one execs column (go fuzz's
// count, marked, where the body does not count its runs), no two columns
// alike, one labelled fuzzing share, and each failure's violation beside
// its reduced file.
func TestSummaryFormat(t *testing.T) {
	var out bytes.Buffer
	c := fakeCampaign(&out)
	c.fails = []failure{{target: "FuzzGateVsModel", check: "I4", at: 95 * time.Second, regress: ".sealfuzz/regress/i4.scn",
		violation: "I4 ack failure: event 5: the release of r1 item=0 was forgotten", input: ".sealfuzz/crashers/FuzzGateVsModel/abc"}}
	c.summary()
	got := out.String()
	if !regexpRow(got, "wire/FuzzUncounted", "16592*", "-") {
		t.Errorf("an uncounted target's row does not show go fuzz's execs, marked:\n%s", got)
	}
	if !strings.Contains(got, "* go fuzz's count") {
		t.Errorf("the mark is not explained:\n%s", got)
	}
	if !regexpRow(got, "total", "3", "1m40s", "106592*") {
		t.Errorf("the total row does not add every target's execs:\n%s", got)
	}
	header := ""
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "target ") {
			header = l
		}
	}
	if cols := regexp.MustCompile(`\S+(?: \S+)*`).FindAllString(header, -1); len(cols) != 8 {
		t.Errorf("header %q: %d columns, want 8", header, len(cols))
	}
	if strings.Count(got, "fuzzing new inputs") != 1 {
		t.Errorf("not exactly one fuzzing share:\n%s", got)
	}
	if strings.Contains(got, "go fuzz execs") || strings.Contains(got, "new cache entries") {
		t.Errorf("a duplicate column is back:\n%s", got)
	}
	i := strings.Index(got, "violation: I4 ack failure")
	j := strings.Index(got, "reduced:   .sealfuzz/regress/i4.scn")
	if i < 0 || j < 0 || j-i > 100 {
		t.Errorf("the violation is not printed next to the reduced file:\n%s", got)
	}
	if !strings.Contains(got, "FuzzGateVsModel: I4 (after 1m35s)") {
		t.Errorf("the failure does not say when it was found:\n%s", got)
	}
}

// TestPlantedLine: a planted-bug campaign ends with whether it found the
// bug, by which check and when, or in how much fuzzing of which targets it
// did not; interrupted, it says so.
func TestPlantedLine(t *testing.T) {
	var out bytes.Buffer
	c := fakeCampaign(&out)
	c.planted = "ack-fail-clears-all"
	c.summary()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "planted bug ack-fail-clears-all: not found in 1m40s of FuzzGateVsModel, wire/FuzzUncounted" {
		t.Errorf("last line %q", last)
	}
	out.Reset()
	c.fails = []failure{{target: "FuzzGateVsModel", check: "I12", at: 47 * time.Second}}
	c.summary()
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "planted bug ack-fail-clears-all: found by I12 after 47s (building 20s, then fuzzing FuzzGateVsModel)" {
		t.Errorf("last line %q", last)
	}
	out.Reset()
	c.fails, c.interrupted = nil, true
	c.summary()
	got := out.String()
	if !strings.HasPrefix(strings.TrimSpace(got), "interrupted after 2m0s; the totals so far:") || !strings.HasSuffix(strings.TrimSpace(got), "(interrupted)") {
		t.Errorf("an interrupted planted-bug campaign:\n%s", got)
	}
}

// TestPickTargets: every target by default; with a planted bug only the
// targets that judge the gate, in whichever package; -targets wins; a
// name not there is refused with the names that are.
func TestPickTargets(t *testing.T) {
	all := []string{"FuzzGateVsModel", "FuzzStrictJSON", "wire/FuzzWireAnthropic"}
	cases := []struct {
		want    []string
		planted bool
		got     string
	}{
		{nil, false, "FuzzGateVsModel,FuzzStrictJSON,wire/FuzzWireAnthropic"},
		{nil, true, "FuzzGateVsModel"},
		{[]string{"wire/FuzzWireAnthropic", "FuzzStrictJSON"}, true, "wire/FuzzWireAnthropic,FuzzStrictJSON"},
	}
	for _, tc := range cases {
		got, err := pickTargets(all, tc.want, tc.planted)
		if err != nil || strings.Join(got, ",") != tc.got {
			t.Errorf("pickTargets(%v, planted %v) = %v, %v; want %s", tc.want, tc.planted, got, err, tc.got)
		}
	}
	if got, _ := pickTargets([]string{"sub/FuzzGateVsModel", "FuzzX"}, nil, true); strings.Join(got, ",") != "sub/FuzzGateVsModel" {
		t.Errorf("a gate target in a package below: %v", got)
	}
	if _, err := pickTargets([]string{"FuzzX"}, nil, true); err == nil || !strings.Contains(err.Error(), "FuzzGateVsModel") {
		t.Errorf("planted with no gate target: %v", err)
	}
	if _, err := pickTargets(all, []string{"FuzzNone"}, false); err == nil || !strings.Contains(err.Error(), "FuzzStrictJSON") {
		t.Errorf("an unknown target: %v", err)
	}
}

// TestPlanCoversBuilding: the turns share what building left of -for, and
// the first lines say how long building took and what is left.
func TestPlanCoversBuilding(t *testing.T) {
	var out bytes.Buffer
	p := &fuzzPkg{cache: t.TempDir()}
	c := &campaign{stdout: &out, total: 3 * time.Minute, built: 60 * time.Second, planted: "unbounded", stats: map[string]*targetStats{},
		where: map[string]*fuzzPkg{"FuzzGateVsModel": p, "FuzzB": p}}
	if err := c.plan([]string{"FuzzGateVsModel", "FuzzB"}); err != nil {
		t.Fatal(err)
	}
	if c.fuzzing != 2*time.Minute || strings.Join(c.targets, ",") != "FuzzGateVsModel" {
		t.Errorf("fuzzing %v of %v, targets %v", c.fuzzing, c.targets, c.targets)
	}
	if c.slice != 2*time.Minute-turnStartup {
		t.Errorf("one target, slice %v: want one turn of all the time left", c.slice)
	}
	for _, want := range []string{"built in 1m0s; 2m0s of -for 3m0s left for fuzzing", "fuzzing FuzzGateVsModel, the targets that judge the gate"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
	c = &campaign{stdout: &out, total: 30 * time.Second, built: 29 * time.Second}
	if err := c.plan([]string{"FuzzB"}); err == nil || !strings.Contains(err.Error(), "used up by building") {
		t.Errorf("building took all of -for: %v", err)
	}
}

// TestEveryTargetCounts: every go fuzz target of the module counts its own
// runs (fuzzkit.NewCounter with its name), so the summary's execs are the
// target's, not go fuzz's lagging counter.
func TestEveryTargetCounts(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	targetRE := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	counterRE := regexp.MustCompile(`fuzzkit\.NewCounter\("(Fuzz\w+)"\)`)
	targets, counted := map[string]string{}, map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // a nested module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range counterRE.FindAllStringSubmatch(string(b), -1) {
			counted[m[1]] = true
		}
		// The libFuzzer harnesses (build tag gofuzz) are not go fuzz targets.
		if strings.HasSuffix(path, "_test.go") && !strings.Contains(string(b), "//go:build gofuzz") {
			for _, m := range targetRE.FindAllStringSubmatch(string(b), -1) {
				targets[m[1]] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) < 10 {
		t.Fatalf("found %d fuzz targets, want the module's: %v", len(targets), targets)
	}
	for name, path := range targets {
		if !counted[name] {
			t.Errorf("%s (%s) does not count its runs: the campaign would show go fuzz's lagging count", name, path)
		}
	}
}

// TestPlantedRegressReplaced: a planted bug's reduced file replaces one
// an earlier run left in its scratch folder, while a second failure of the
// same check in one campaign, or any earlier file without a planted bug,
// is kept.
func TestPlantedRegressReplaced(t *testing.T) {
	t.Setenv(zoo.FaultsEnv, zoo.ReleaseAtEnd.Name)
	src, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(zoo.ReleaseAtEnd.Kill.Where)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	failing := func(name string) string {
		p := filepath.Join(dir, name+".scn")
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	regress := filepath.Join(dir, "regress")
	c := &campaign{regress: regress, planted: zoo.ReleaseAtEnd.Name, start: time.Now()}
	c.collect("FuzzGateVsModel", dir, failing("a"), "", "")
	if len(c.fails) != 1 || c.fails[0].regress == "" || c.fails[0].violation == "" {
		t.Fatalf("first failure: %+v", c.fails)
	}
	name := c.fails[0].regress
	if err := os.WriteFile(name, []byte("an earlier run's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.collect("FuzzGateVsModel", dir, failing("b"), "", "")
	if c.fails[1].regress != "" || !strings.Contains(c.fails[1].note, "kept the earlier one") {
		t.Errorf("a second failure of one check in one campaign: %+v", c.fails[1])
	}
	c = &campaign{regress: regress, planted: zoo.ReleaseAtEnd.Name, start: time.Now()}
	c.collect("FuzzGateVsModel", dir, failing("c"), "", "")
	if b, _ := os.ReadFile(name); c.fails[0].regress != name || string(b) == "an earlier run's\n" {
		t.Errorf("a planted run did not replace an earlier run's file: %+v", c.fails[0])
	}
	c = &campaign{regress: regress, start: time.Now()}
	c.collect("FuzzGateVsModel", dir, failing("d"), "", "")
	if c.fails[0].regress != "" {
		t.Errorf("without a planted bug an earlier file was replaced: %+v", c.fails[0])
	}
}
