package trial

import (
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/scn"
)

const corpusDir = "../../corpus"

func names(ss []*scn.Scenario) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// TestLoadIsScnFiles: a folder loads as scn.Files lists it, in its order,
// each scenario named by its path.
func TestLoadIsScnFiles(t *testing.T) {
	want, err := scn.Files(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names(got), want) {
		t.Fatalf("LoadCorpus names %d files, scn.Files %d; first %v vs %v", len(got), len(want), names(got)[:3], want[:3])
	}
	s, err := scn.ParseFile(want[len(want)-1])
	if err != nil {
		t.Fatal(err)
	}
	if !s.Equal(got[len(got)-1]) {
		t.Fatalf("%s: parsed differently", want[len(want)-1])
	}
}

// TestEmbeddedIsTheFolder: the built-in corpus is the folder's, named as
// the repository's corpus folder names its files.
func TestEmbeddedIsTheFolder(t *testing.T) {
	folder, err := LoadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := LoadCorpus(Embedded)
	if err != nil {
		t.Fatal(err)
	}
	if len(embedded) != len(folder) {
		t.Fatalf("embedded %d scenarios, the folder %d", len(embedded), len(folder))
	}
	for i, s := range embedded {
		want := filepath.Join("corpus", strings.TrimPrefix(folder[i].Name, filepath.Clean(corpusDir)+string(filepath.Separator)))
		if s.Name != want || !s.Equal(folder[i]) {
			t.Fatalf("scenario %d: embedded %s, folder %s", i, s.Name, folder[i].Name)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := LoadCorpus(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no .scn files") {
		t.Fatalf("an empty folder: %v", err)
	}
	if _, err := LoadCorpus(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a missing folder loaded")
	}
	if ss, err := LoadCorpus(""); ss != nil || err != nil {
		t.Fatalf("no corpus: %v, %v", ss, err)
	}
}

// TestPlanRunsThePhasesInOrder: the corpus, then the machine streams,
// then generated streams for the budget, each phase between Begin and
// End with its count; a stop ends the trial.
func TestPlanRunsThePhasesInOrder(t *testing.T) {
	corpus, err := LoadCorpus(filepath.Join(corpusDir, "seed"))
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	counts := map[string]int{}
	p := Plan{
		Corpus:   corpus[:2],
		Machines: 3,
		Machine:  func(i int) (Stream, bool) { return Stream{Phase: PhaseMachine}, i != 1 },
		Generate: Bytes(rand.New(rand.NewSource(1))),
		Budget:   20 * time.Millisecond,
		Begin:    func(ph string) { log = append(log, "begin "+ph) },
		End: func(ph string, n int, _ time.Duration) {
			counts[ph] = n
			log = append(log, "end "+ph)
		},
	}
	var seen []string
	p.Run(func(s Stream) bool {
		if len(seen) == 0 || seen[len(seen)-1] != s.Phase {
			seen = append(seen, s.Phase)
		}
		return false
	})
	if want := []string{PhaseCorpus, PhaseMachine, PhaseGenerated}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("phases %v, want %v", seen, want)
	}
	if counts[PhaseCorpus] != 2 || counts[PhaseMachine] != 3 || counts[PhaseGenerated] == 0 {
		t.Fatalf("counts %v", counts)
	}
	if len(log) != 6 || log[0] != "begin corpus" || log[5] != "end generated" {
		t.Fatalf("begin/end %v", log)
	}
	n := 0
	p.Begin, p.End = nil, nil
	p.Run(func(Stream) bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("ran %d streams after a stop at the third", n)
	}
}

// TestPlanMachineBudget: the machine phase starts no run once its budget
// is spent on the plan's clock, finishes the one in progress, and reports
// how many ran; without a budget every run is made.
func TestPlanMachineBudget(t *testing.T) {
	var clock time.Time
	ran := 0
	p := Plan{
		Machines:      20,
		MachineBudget: 2 * time.Minute,
		Machine: func(i int) (Stream, bool) {
			ran++
			clock = clock.Add(50 * time.Second) // each run takes 50 s
			return Stream{Phase: PhaseMachine}, true
		},
		Now: func() time.Time { return clock },
		End: func(ph string, n int, took time.Duration) {
			if ph != PhaseMachine || n != 3 || took != 150*time.Second {
				t.Errorf("End(%s, %d, %v), want machine, 3 runs, 2m30s", ph, n, took)
			}
		},
	}
	p.Run(func(Stream) bool { return false })
	if ran != 3 {
		t.Fatalf("%d machine runs in a 2 minute budget of 50 s runs, want 3 (the third began at 1m40s)", ran)
	}
	ran, p.MachineBudget, p.End = 0, 0, nil
	p.Run(func(Stream) bool { return false })
	if ran != 20 {
		t.Fatalf("%d machine runs without a budget, want 20", ran)
	}
}

// TestGeneratedStreamsCheck: the generated streams are the gofuzz
// reading's, and the real gate passes them.
func TestGeneratedStreamsCheck(t *testing.T) {
	gen := Bytes(rand.New(rand.NewSource(1)))
	for i := 0; i < 50; i++ {
		s, ok := gen(i)
		if !ok || s.Phase != PhaseGenerated || s.Source == "" {
			t.Fatalf("stream %d: %+v", i, s)
		}
		if err := check.Default.All(s.Config, s.Events); err != nil {
			t.Fatalf("%s: %v", s.Source, err)
		}
	}
	s, err := Hunt(check.Default, 1, 2)
	if err != nil || s.Err != nil {
		t.Fatalf("the machine on the real gate: %v, %v", err, s.Err)
	}
}

func TestSaidNamesAnEmptyAnswer(t *testing.T) {
	if got := said(nil); got != "(nothing)\n" {
		t.Errorf("said(nil) = %q", got)
	}
	d := sealgate.Decision{At: 2, Kind: sealgate.Reject, Attempt: "r1", Item: "0", Reason: sealgate.Incomplete}
	if got := said([]sealgate.Decision{d}); got != "@2 reject r1 item=0 reason=incomplete\n" {
		t.Errorf("said = %q", got)
	}
}
