package gate

import (
	"strconv"
	"testing"

	"github.com/sealgate/sealgate"
)

// BenchmarkStream feeds one attempt of one call in 16-byte deltas with a
// peek every 64 deltas, then seals it.
func BenchmarkStream(b *testing.B) {
	content := make([]byte, 0, 64<<10)
	content = append(content, `{"path":"notes.md","content":"`...)
	for len(content) < 60<<10 {
		content = append(content, `lorem ipsum \u00e9 dolor sit amet, `...)
	}
	content = append(content, `"}`...)
	cfg := testConfig()
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		g, _ := New(cfg, NewMemoryLedger())
		a := "r" + strconv.Itoa(i)
		g.Feed(sealgate.OpenEvent(a, "t"))
		g.Feed(sealgate.BeginEvent(a, "0", "c", "save_file"))
		for j, k := 0, 0; j < len(content); j, k = j+16, k+1 {
			g.Feed(sealgate.DeltaEvent(a, "0", content[j:min(j+16, len(content))]))
			if k%64 == 0 {
				g.Feed(sealgate.PeekEvent(a, "0"))
			}
		}
		g.Feed(sealgate.EndEvent(a, "0"))
		if ds, _ := g.Feed(sealgate.CloseEvent(a, sealgate.Complete)); len(ds) != 1 || ds[0].Kind != sealgate.Release {
			b.Fatalf("not released: %v", ds)
		}
	}
}

// BenchmarkValidJSON is the seal's strict parse alone.
func BenchmarkValidJSON(b *testing.B) {
	raw := []byte(`{"path":"notes.md","content":"","n":[1,2.5e3,-0,true,false,null,{"a":"\u00e9\ud83d\ude00"}]}`)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ValidJSON(raw, 64); err != nil {
			b.Fatal(err)
		}
	}
}
