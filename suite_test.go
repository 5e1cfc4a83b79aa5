package sealgate_test

import (
	"testing"

	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/internal/zoo/faults"
)

// TestRapidCatchesReleaseAtEnd plants the bug "release at end under
// after-turn" in the real gate: the state machine must find it with each
// fixed seed within rapid's default 100 runs, and the reducer must bring
// the counterexample down to at most 6 events.
func TestRapidCatchesReleaseAtEnd(t *testing.T) {
	chk := zoo.WithFaults(faults.Set{ReleaseAtEnd: true})
	for _, seed := range []uint64{1, 2, 3} {
		got, after, err := machine.Hunt(chk, seed, 100)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			t.Fatalf("seed %d: rapid did not catch a gate that releases at end under after-turn", seed)
		}
		res, err := reduce.Reduce(got.Config, got.Events, chk.All, reduce.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(res.Events) > 6 {
			t.Errorf("seed %d: reduced to %d events, want at most 6:\n%s", seed, len(res.Events), reduce.Text(res.Config, res.Events, res.Err))
		}
		t.Logf("seed %d: caught after %v (%v); %d events, %d after reduction", seed, after, reduce.ID(got.Err), len(got.Events), len(res.Events))
	}
}
