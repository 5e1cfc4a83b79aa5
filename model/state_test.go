package model

import (
	"testing"

	"github.com/sealgate/sealgate"
)

// TestState: State's decisions are Run's; a peek or an empty fragment
// leaves the state as it was, a fragment or an ack changes it, and a
// restart forgets the attempts but not the ledger.
func TestState(t *testing.T) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "f", Schema: `{"type":"object"}`}}
	base := []sealgate.Event{sealgate.OpenEvent("a1", "t1"), sealgate.BeginEvent("a1", "0", "c1", "f")}
	with := func(evs ...sealgate.Event) []sealgate.Event {
		return append(append([]sealgate.Event(nil), base...), evs...)
	}
	state := func(evs []sealgate.Event) string {
		s, ds := State(cfg, evs)
		if err := sameDecisions(ds, Run(cfg, evs)); err != "" {
			t.Fatalf("State's decisions differ from Run's: %s", err)
		}
		return s
	}
	s0 := state(base)
	if s := state(with(sealgate.PeekEvent("a1", "0"))); s != s0 {
		t.Errorf("a peek changed the state:\n%s\nwant\n%s", s, s0)
	}
	if s := state(with(sealgate.DeltaEvent("a1", "0", nil))); s != s0 {
		t.Errorf("an empty fragment changed the state:\n%s\nwant\n%s", s, s0)
	}
	if s := state(with(sealgate.DeltaEvent("a1", "0", []byte("{")))); s == s0 {
		t.Errorf("a fragment left the state as it was:\n%s", s)
	}
	released := with(sealgate.DeltaEvent("a1", "0", []byte("{}")), sealgate.EndEvent("a1", "0"), sealgate.CloseEvent("a1", sealgate.Complete))
	key := LedgerKeys(cfg, released)[0]
	s1 := state(released)
	s2 := state(append(released, sealgate.RestartEvent()))
	if s2 == s1 || s2 != "ledger "+key+"=intent\nreleased" {
		t.Errorf("after a restart the state is\n%s\nwant only the ledger's intent for %s", s2, key)
	}
	if s := state(append(released, sealgate.AckEvent(key, true))); s == s1 {
		t.Errorf("ack ok left the state as it was:\n%s", s)
	}
	if s, _ := State(sealgate.Config{}, nil); s != "" {
		t.Errorf("a refused configuration has state %q, want empty", s)
	}
}

func sameDecisions(a, b []sealgate.Decision) string {
	if len(a) != len(b) {
		return "lengths differ"
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return a[i].String() + " vs " + b[i].String()
		}
	}
	return ""
}
