package peers

import (
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/wire"
)

func TestSmoke(t *testing.T) {
	r := NewRunner()
	defer r.Close()
	in := []sealgate.Event{
		sealgate.OpenEvent("a1", "t1"),
		sealgate.BeginEvent("a1", "x", "call_1", "get_weather"),
		sealgate.DeltaEvent("a1", "x", []byte(`{"city":`)),
		sealgate.DeltaEvent("a1", "x", []byte(`"Edinburgh"}`)),
		sealgate.EndEvent("a1", "x"),
		sealgate.CloseEvent("a1", sealgate.Complete),
	}
	for _, p := range All() {
		evs, err := Normalize(p.Protocol, in)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := wire.Encode(p.Protocol, evs)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []Fault{{}, {Kind: DropTerminal}, {Kind: CutInside, At: 3}} {
			b := f.Apply(Body{Protocol: p.Protocol, Events: SplitEvents(enc)})
			out, err := r.Run(p, b)
			t.Logf("%s %v: err=%v sdk=%v events=%d after=%v", p.Name, f, err, out.SDKErr, len(out.Meaning.Events), out.Meaning.After)
			for _, d := range out.Releases {
				t.Logf("   %s", d)
			}
		}
	}
}
