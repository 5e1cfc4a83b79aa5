package trial

import (
	"math/rand"
	"testing"

	"github.com/sealgate/sealgate/internal/zoo"
)

// TestGeneratedStreamsKillTheHiddenZooBugs: the generated streams of
// `sealfuzz test -gate` (seed 1) kill each of the zoo's two bugs of the
// hidden classes in at least one stream in a hundred
// (docs/research/power/hidden.md has the rates for every bug).
func TestGeneratedStreamsKillTheHiddenZooBugs(t *testing.T) {
	const n = 600
	bugs := []zoo.Bug{zoo.DisconnectedIsComplete, zoo.AckFailClearsAll}
	next := Bytes(rand.New(rand.NewSource(1)))
	kills := make([]int, len(bugs))
	for i := range n {
		s, _ := next(i)
		for j, b := range bugs {
			if b.Checker().All(s.Config, s.Events) != nil {
				kills[j]++
			}
		}
	}
	for j, b := range bugs {
		t.Logf("%s: killed by %d of %d generated streams", b.Name, kills[j], n)
		if kills[j] < n/100 {
			t.Errorf("%s: killed by %d of %d generated streams, want at least %d", b.Name, kills[j], n, n/100)
		}
	}
}
