package machine_test

import (
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/model"
)

// TestMachineDrawsHiddenShapes: of 100 runs of the machine (seed 1), at
// least one in five has a bad close after every call ended and one in
// ten a call decided by another key's state after an ack fail, the shapes
// of the two bug classes docs/research/power/hidden.md measures.
func TestMachineDrawsHiddenShapes(t *testing.T) {
	const runs = 100
	n, closes, acks := 0, 0, 0
	err := machine.Observe(check.Default, 1, runs, func(cfg sealgate.Config, evs []sealgate.Event) {
		ds := model.Run(cfg, evs)
		n++
		if gen.BadCloseAfterEnds(evs, ds) {
			closes++
		}
		if gen.OtherKeyAfterAckFail(evs, ds) {
			acks++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("of %d runs: %d a bad close after every call ended, %d a call decided by another key after an ack fail", n, closes, acks)
	if closes < n/5 || acks < n/10 {
		t.Fatalf("of %d runs: %d with a bad close after every call ended (want %d), %d with another key deciding after an ack fail (want %d)",
			n, closes, n/5, acks, n/10)
	}
}
