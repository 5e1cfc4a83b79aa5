package fuzztarget

import (
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/gen"
)

// TestFromFuzzArgs: the arguments of each gate target give back the
// scenario its body checks; a target whose failures are no gate scenario,
// or arguments of the wrong kinds, give none.
func TestFromFuzzArgs(t *testing.T) {
	cfg, evs, ok := FromFuzzArgs("FuzzChunking", []any{[]byte(`{"a":1}`), []byte{2, 0, 1}, uint8(1)})
	wantCfg, wantEvs := ChunkedCall([]byte(`{"a":1}`), []byte{2, 0, 1}, 1)
	if !ok || !sameStream(evs, wantEvs) || cfg.Tools[0].Name != wantCfg.Tools[0].Name {
		t.Fatalf("FuzzChunking: %v %v", ok, evs)
	}
	// Cut after 2 bytes, then a zero cut (the rest in one), a peek after each.
	var deltas []string
	for _, e := range evs {
		if e.Kind == sealgate.Delta {
			deltas = append(deltas, string(e.Bytes))
		}
	}
	if len(deltas) != 2 || deltas[0] != `{"` || deltas[1] != `a":1}` {
		t.Fatalf("FuzzChunking deltas %q", deltas)
	}
	if name := cfg.Tools[1%len(cfg.Tools)].Name; evs[1].Tool != name {
		t.Fatalf("tool byte 1 picks %q, want %q", evs[1].Tool, name)
	}

	cfg, evs, ok = FromFuzzArgs("FuzzStrictJSON", []any{[]byte(`[1]`), uint8(71)})
	if !ok || cfg.Limits.Depth != StrictDepth(71) || StrictDepth(71) != 2 || string(evs[2].Bytes) != `[1]` {
		t.Fatalf("FuzzStrictJSON: %v depth %d %v", ok, cfg.Limits.Depth, evs)
	}

	text := append([]byte{1}, "open r1 turn=t1\n----\n"...)
	wantCfg, wantEvs, wantOK := gen.Input(text)
	cfg, evs, ok = FromFuzzArgs("FuzzGateVsModel", []any{text})
	if !wantOK || ok != wantOK || !sameStream(evs, wantEvs) || cfg.Limits != wantCfg.Limits {
		t.Fatalf("FuzzGateVsModel: %v %v, want %v %v", ok, evs, wantOK, wantEvs)
	}

	for _, c := range []struct {
		target string
		args   []any
	}{
		{"FuzzScenarioText", []any{[]byte("x")}},
		{"FuzzChunking", []any{[]byte("x"), []byte{1}}},
		{"FuzzStrictJSON", []any{"not bytes", uint8(1)}},
		{"FuzzGateVsModel", nil},
	} {
		if _, _, ok := FromFuzzArgs(c.target, c.args); ok {
			t.Errorf("FromFuzzArgs(%s, %v) gave a scenario", c.target, c.args)
		}
	}
}

func sameStream(a, b []sealgate.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
