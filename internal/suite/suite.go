// Package suite runs the suite's own checks against the real gate from
// inside another package's tests. Mutation testing (gremlins) runs only the
// mutated package's tests for each mutant, so package gate and package
// gate/internal/partial call Run to be judged by the corpus, the generated
// streams and the state machine, not by their unit tests alone. Everything
// here is deterministic (fixed seeds) and quick: a mutation tool reruns it
// hundreds of times.
package suite

import (
	"math/rand"
	"testing"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/trial"
)

// Budget says how much of the suite Run does.
type Budget struct {
	Generated int      // byte-generated scenarios (gen.FromBytes)
	Seeds     []uint64 // state-machine seeds
	Checks    int      // state-machine runs per seed
}

// Quick is the budget of the in-package suite tests: about two seconds.
var Quick = Budget{Generated: 600, Seeds: []uint64{1, 2}, Checks: 12}

// Run checks the real gate with every scenario under corpusDir, then the
// generated scenarios and the state machine of budget b.
func Run(t *testing.T, corpusDir string, b Budget) {
	t.Run("corpus", func(t *testing.T) { Corpus(t, corpusDir) })
	t.Run("generated", func(t *testing.T) { Generated(t, b.Generated) })
	t.Run("machine", func(t *testing.T) { Machine(t, b.Seeds, b.Checks) })
}

// Corpus checks every scenario under dir with everything check.All knows
// (gate against model, determinism, the invariants, chunking, isolation),
// and the gate's decisions against the file's expected ones.
func Corpus(t *testing.T, dir string) {
	scenarios, err := trial.LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scenarios {
		f := s.Name
		if cfg, err := s.Config(); err == nil {
			if err := check.All(cfg, s.Events); err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
		}
		r := check.Default.RunScenario(s)
		if r.GateErr != nil {
			t.Errorf("%s: %v", f, r.GateErr)
			continue
		}
		if check.Compare("expected", s.Expect, "gate", r.Gate) != nil {
			t.Errorf("%s: gate differs from the expected decisions:\n%s", f, check.Diff("expected", s.Expect, "gate", r.Gate))
		}
	}
}

// Generated checks n scenarios that gen.FromBytes makes of fixed
// pseudo-random bytes with check.All.
func Generated(t *testing.T, n int) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < n; i++ {
		data := make([]byte, 40+r.Intn(400))
		r.Read(data)
		cfg, evs := gen.FromBytes(data)
		if err := check.All(cfg, evs); err != nil {
			t.Fatalf("input %d (%x): %v", i, data, err)
		}
	}
}

// Machine runs the state machine with each seed for checks runs and fails
// on the first counterexample.
func Machine(t *testing.T, seeds []uint64, checks int) {
	for _, seed := range seeds {
		s, err := trial.Hunt(check.Default, seed, checks)
		if err != nil {
			t.Fatal(err)
		}
		if s.Err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, s.Err, reduce.Text(s.Config, s.Events, s.Err))
		}
	}
}
