package check_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
)

// TestSampledChecks: a gate only I6 catches (dropSingles) is caught on
// every stream at full fidelity and on about one stream in n by
// a Sample of n, the same streams each time; gate == model still runs on
// every stream.
func TestSampledChecks(t *testing.T) {
	chk := wrapChecker(func(g *gate.Gate) gated { return dropSingles{g} })
	sampled := sampledBy(chk, 4)
	const streams = 400
	caught := 0
	for i := 0; i < streams; i++ {
		d := sealgate.DeltaEvent("r1", "0", []byte(fmt.Sprintf(`{"token":"s3cret","u":"ann%d"}`, i)))
		evs := []sealgate.Event{open1, begin1, d, end1, close1}
		var v *check.Violation
		if err := chk.All(cfgWithSecret(), evs); !errors.As(err, &v) || v.ID != "I6" {
			t.Fatalf("stream %d at full fidelity: want I6, got %v", i, err)
		}
		if err := sampledBy(chk, 1).All(cfgWithSecret(), evs); !errors.As(err, &v) || v.ID != "I6" {
			t.Fatalf("stream %d with Sample 1: want I6, got %v", i, err)
		}
		first := sampled.All(cfgWithSecret(), evs)
		again := sampled.All(cfgWithSecret(), evs)
		if (first == nil) != (again == nil) {
			t.Fatalf("stream %d: sampled twice, %v then %v", i, first, again)
		}
		if first != nil {
			caught++
		}
	}
	if caught < streams/8 || caught > streams*3/8 {
		t.Fatalf("Sample 4 ran I6 on %d of %d streams, want about a quarter", caught, streams)
	}
	// A model disagreement is not sampled.
	bad := sampledBy(wrapChecker(func(g *gate.Gate) gated { return dropAll{g} }), 1<<30)
	var v *check.Violation
	if err := bad.All(cfgWithSecret(), []sealgate.Event{open1, begin1, delta1, end1, close1}); !errors.As(err, &v) || v.ID != "I12" {
		t.Fatalf("sampled checker on a gate that drops every fragment: want I12, got %v", err)
	}
}

// dropAll is a gate that never sees a fragment's bytes.
type dropAll struct{ g *gate.Gate }

func (d dropAll) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	if ev.Kind == sealgate.Delta {
		ev.Bytes = nil
	}
	return d.g.Feed(ev)
}
func (d dropAll) Retained() int { return d.g.Retained() }
