package zoo_test

import (
	"path/filepath"
	"testing"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/machine"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/zoo"
)

// TestZooCaughtByRapid: with a fixed seed, the state machine finds every
// bug of the zoo within rapid's default 100 runs.
func TestZooCaughtByRapid(t *testing.T) {
	for _, b := range zoo.All {
		t.Run(b.Name, func(t *testing.T) {
			got, after, err := machine.Hunt(b.Checker(), 1, 100)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatalf("rapid (seed 1, 100 runs) did not catch %s: %s", b.Name, b.What)
			}
			t.Logf("caught after %v: %v", after, got.Err)
		})
	}
}

// TestZooCaughtByCorpus: replaying the corpus catches every bug marked so.
func TestZooCaughtByCorpus(t *testing.T) {
	files, err := scn.Files(filepath.Join("..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	var scenarios []*scn.Scenario
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		scenarios = append(scenarios, s)
	}
	for _, b := range zoo.All {
		if !b.Corpus {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			chk := b.Checker()
			for i, s := range scenarios {
				r := chk.RunScenario(s)
				if check.Compare("expected", s.Expect, "gate", r.Gate) != nil || r.GateErr != nil {
					t.Logf("caught by %s", files[i])
					return
				}
			}
			t.Fatalf("no corpus scenario catches %s: %s", b.Name, b.What)
		})
	}
}

func TestZooNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range zoo.All {
		if seen[b.Name] || b.Findings == "" || b.What == "" {
			t.Errorf("bug %q: duplicate name or missing citation", b.Name)
		}
		seen[b.Name] = true
	}
	if len(zoo.All) < 15 {
		t.Errorf("the zoo has %d bugs, want at least 15", len(zoo.All))
	}
}
