package machine_test

import (
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/machine"
)

// TestObserveSeesEveryRunDeterministically: Observe hands over one stream
// per run, and the same seed gives the same streams.
func TestObserveSeesEveryRunDeterministically(t *testing.T) {
	collect := func() []int {
		var lens []int
		err := machine.Observe(check.Default, 7, 5, func(cfg sealgate.Config, evs []sealgate.Event) {
			lens = append(lens, len(evs))
		})
		if err != nil {
			t.Fatal(err)
		}
		return lens
	}
	a, b := collect(), collect()
	if len(a) != 5 {
		t.Fatalf("saw %d runs, want 5", len(a))
	}
	total := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("run %d: %d events, then %d: the same seed must draw the same streams", i, a[i], b[i])
		}
		total += a[i]
	}
	if total == 0 {
		t.Fatal("five runs without a single event")
	}
}
