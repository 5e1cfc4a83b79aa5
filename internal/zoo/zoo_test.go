package zoo_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/internal/zoo/faults"
	"github.com/sealgate/sealgate/scn"
)

// TestZooCaughtByRapid: with a fixed seed, the state machine finds every
// bug of the zoo within rapid's default 100 runs.
func TestZooCaughtByRapid(t *testing.T) {
	for _, b := range zoo.All {
		t.Run(b.Name, func(t *testing.T) {
			if b.Missed != "" {
				t.Skipf("expected to be missed by the generators: %s", b.Missed)
			}
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
	files, err := scn.Files(filepath.Join("..", "..", "corpus"))
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
	if len(zoo.All) < 24 {
		t.Errorf("the zoo has %d bugs, want at least 24", len(zoo.All))
	}
	for _, b := range zoo.All {
		if b.Rule == "" || b.Kill.Layer == "" || b.Kill.Where == "" {
			t.Errorf("bug %q: no SPEC rule or no deterministic layer", b.Name)
		}
		if b.Faults == (faults.Set{}) {
			t.Errorf("bug %q: no switch on", b.Name)
		}
	}
}

// TestZooDeterministicKill: every bug dies in the deterministic layer its
// Kill names, and the correct gate passes there (so the layer kills the
// bug, not everything). This is what docs/research/power/deterministic.md claims.
func TestZooDeterministicKill(t *testing.T) {
	for _, b := range zoo.All {
		t.Run(b.Name, func(t *testing.T) {
			switch b.Kill.Layer {
			case zoo.LayerCorpus:
				s, err := scn.ParseFile(filepath.Join("..", "..", filepath.FromSlash(b.Kill.Where)))
				if err != nil {
					t.Fatal(err)
				}
				if r := check.Default.RunScenario(s); r.GateErr != nil || check.Compare("expected", s.Expect, "gate", r.Gate) != nil {
					t.Fatalf("%s: the correct gate does not pass it (%v)", b.Kill.Where, r.GateErr)
				}
				r := b.Checker().RunScenario(s)
				if r.GateErr == nil && check.Compare("expected", s.Expect, "gate", r.Gate) == nil {
					t.Fatalf("%s does not kill %s: %s", b.Kill.Where, b.Name, b.What)
				}
			case zoo.LayerRapidSeed:
				seed, err := strconv.ParseUint(b.Kill.Where, 10, 64)
				if err != nil {
					t.Fatalf("seed %q: %v", b.Kill.Where, err)
				}
				got, _, err := machine.Hunt(b.Checker(), seed, 100)
				if err != nil {
					t.Fatal(err)
				}
				if got == nil {
					t.Fatalf("rapid (seed %d, 100 runs) does not kill %s", seed, b.Name)
				}
			default:
				t.Fatalf("no deterministic layer %q", b.Kill.Layer)
			}
		})
	}
}

// TestZooDeterministicTable: docs/research/power/deterministic.md has a row for
// every bug, naming the layer and place its Kill names.
func TestZooDeterministicTable(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "docs", "research", "power", "deterministic.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(text), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		// The first row naming a bug is the table's; later tables (the
		// kill rates) may name it again.
		if name := strings.Trim(cells[0], "`"); rows[name] == nil {
			rows[name] = cells
		}
	}
	for _, b := range zoo.All {
		cells, ok := rows[b.Name]
		if !ok {
			t.Errorf("docs/research/power/deterministic.md has no row for %s", b.Name)
			continue
		}
		// bug | class | SPEC rule | layer | file/test | ...
		if len(cells) < 5 || cells[3] != b.Kill.Layer || strings.Trim(cells[4], "`") != b.Kill.Where {
			t.Errorf("docs/research/power/deterministic.md row %s: %q, want layer %s at %s", b.Name, cells, b.Kill.Layer, b.Kill.Where)
		}
	}
}
