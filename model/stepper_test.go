package model_test

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/model"
)

// TestStepperIsRunOnEveryPrefix: after each event, the Stepper's decisions
// and ledger keys are Run's and LedgerKeys' on the events so far, over
// generated scenarios (fixed and swarm configurations, refused ones
// included).
func TestStepperIsRunOnEveryPrefix(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	checked, refused := 0, 0
	for i := 0; i < 400; i++ {
		data := make([]byte, 64+rng.Intn(1024))
		rng.Read(data)
		cfg, events := gen.FromBytes(data)
		s := model.NewStepper(cfg)
		for n := 0; n <= len(events); n++ {
			if n > 0 {
				s.Feed(events[n-1])
			}
			want := model.Run(cfg, events[:n])
			if got := s.Decisions(); !reflect.DeepEqual(nilIfEmpty(got), nilIfEmpty(want)) {
				t.Fatalf("input %d, after %d events: stepper decided %v, Run %v", i, n, got, want)
			}
			if got, want := s.LedgerKeys(), model.LedgerKeys(cfg, events[:n]); !reflect.DeepEqual(nilIfEmptyS(got), nilIfEmptyS(want)) {
				t.Fatalf("input %d, after %d events: stepper's keys %v, LedgerKeys %v", i, n, got, want)
			}
		}
		checked++
		if ds := s.Decisions(); len(ds) == 1 && ds[0].Kind == sealgate.Refused {
			refused++
		}
	}
	if refused == checked {
		t.Fatalf("all %d configurations were refused: nothing was stepped", checked)
	}
}

func nilIfEmpty(ds []sealgate.Decision) []sealgate.Decision {
	if len(ds) == 0 {
		return nil
	}
	return ds
}

func nilIfEmptyS(ks []string) []string {
	if len(ks) == 0 {
		return nil
	}
	return ks
}
