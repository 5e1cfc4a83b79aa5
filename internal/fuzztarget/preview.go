package fuzztarget

import (
	"fmt"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/model"
)

// The root FuzzPreview's body and the stream runner it shares with the
// root package's preview tests (preview_test.go): the gate's incremental
// preview against the model's from-scratch one (SPEC section 8), and the
// preview stream rebuilding every peek.

var previewExecs = fuzzkit.NewCounter("FuzzPreview")

// Preview runs x (at most 2 KiB) through a gate cut at four points that
// cutBits picks (and, up to 256 bytes, byte by byte), at the depth and
// preview size depth and capb pick: gate == model at every peek point, and
// the stream rebuilds every peek.
func Preview(t fuzzkit.TB, x []byte, cutBits uint64, depth uint8, capb uint16) {
	t.Helper()
	previewExecs.Add()
	if len(x) > 2048 {
		return
	}
	var cuts []int
	for k := 0; k < 4 && len(x) > 0; k++ {
		cuts = append(cuts, int(cutBits>>(16*k)&0xFFFF)%(len(x)+1))
	}
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	d := int(depth%6) + 1
	if depth >= 128 {
		d = 64
	}
	c := int(capb)
	if c == 0 {
		c = 64 << 10
	}
	RunPreview(t, x, cuts, d, c, true)
	if len(x) <= 256 {
		RunPreview(t, x, BytewiseCuts(len(x)), d, c, true)
	}
}

// PreviewSeeds are FuzzPreview's seeds (x, cutBits, depth, capb).
func PreviewSeeds() [][]any {
	return [][]any{
		{[]byte(`{"path":"notes.md","content":"Topic confirmed.`), uint64(0x0a0703), uint8(64), uint16(0)},
		{[]byte(`{"token":"QZ","auth":{"token":[1,2]},"o":{"s":tr`), uint64(0x1105), uint8(64), uint16(30)},
		{[]byte(`[1e309,"\ud83d\ude00\ud83d",{"a":1,"\u0061":2}]`), uint64(0x0b0502), uint8(2), uint16(0)},
		{[]byte("{\"a\":[[[\"x\u00e9\\u00e9\"]]],\"b\":-0.5e-3 }\x01"), uint64(0x20), uint8(3), uint16(11)},
	}
}

// PreviewSecrets are the secret declarations of the preview tool.
var PreviewSecrets = []string{"token", "/auth/token", "/o/s"}

// PreviewConfig is the preview tests' configuration: one tool, "t", any
// object, with PreviewSecrets, at these limits.
func PreviewConfig(depth, previewBytes int) sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "t", Schema: `{"type":"object"}`, Secrets: PreviewSecrets}}
	cfg.Limits.Depth = depth
	cfg.Limits.PreviewBytes = previewBytes
	return cfg
}

// PreviewPaths are PreviewSecrets as paths.
func PreviewPaths(tb interface{ Fatal(...any) }) [][]string {
	var out [][]string
	for _, s := range PreviewSecrets {
		p, err := sealgate.SecretPath(s)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// PreviewRun is one stream's observations.
type PreviewRun struct {
	Values  []string // the peek value after each delta
	Changes []gate.PreviewChange
	Logs    []string // every decision line but releases (the execution channel) and previews (in values)
}

// RunPreview feeds x in the given chunks to a fresh gate, peeking and
// reading the preview stream after every delta. At every peek it checks the
// gate against model.PreviewOf (when withModel) and the stream's rebuilt view
// against the peek.
func RunPreview(t fuzzkit.TB, x []byte, cuts []int, depth, previewBytes int, withModel bool) PreviewRun {
	t.Helper()
	g, err := gate.New(PreviewConfig(depth, previewBytes), gate.NewMemoryLedger())
	if err != nil {
		t.Fatalf("gate.New: %v", err)
	}
	return RunPreviewOn(t, g, "r", x, cuts, depth, previewBytes, withModel)
}

// RunPreviewOn is RunPreview on an existing gate (built with
// PreviewConfig(depth, previewBytes)), under a fresh attempt id.
func RunPreviewOn(t fuzzkit.TB, g *gate.Gate, attempt string, x []byte, cuts []int, depth, previewBytes int, withModel bool) PreviewRun {
	t.Helper()
	paths := PreviewPaths(fatalOnly{t})
	var run PreviewRun
	feed := func(ev sealgate.Event) []sealgate.Decision {
		ds, err := g.Feed(ev)
		if err != nil {
			t.Fatalf("feed %v: %v", ev, err)
		}
		for _, d := range ds {
			if d.Kind != sealgate.Release && d.Kind != sealgate.PreviewAnswer {
				run.Logs = append(run.Logs, d.String())
			}
		}
		return ds
	}
	feed(sealgate.OpenEvent(attempt, "t"))
	feed(sealgate.BeginEvent(attempt, "0", "c", "t"))
	s, ok := g.Watch(attempt, "0")
	if !ok {
		t.Fatalf("Watch refused a live call")
	}
	var view gate.PreviewView
	apply := func() {
		n := len(run.Changes)
		run.Changes = s.Next(run.Changes)
		for _, c := range run.Changes[n:] {
			if !view.Apply(c) {
				t.Fatalf("%q: change %v does not fit the view %s", x, c, view.String())
			}
		}
	}
	last := 0
	step := func(end int) {
		feed(sealgate.DeltaEvent(attempt, "0", x[last:end]))
		last = end
		ds := feed(sealgate.PeekEvent(attempt, "0"))
		if len(ds) != 1 || ds[0].Kind != sealgate.PreviewAnswer {
			t.Fatalf("peek answered %v", ds)
		}
		p := ds[0].Preview
		run.Values = append(run.Values, p.Value)
		if withModel {
			if want := model.PreviewOf(x[:end], depth, previewBytes, paths); p != want {
				t.Fatalf("%q cut %v, after %d bytes: gate %+v, model %+v", x, cuts, end, p, want)
			}
		}
		apply()
		if view.String() != p.Value || s.Bytes() != p.Bytes {
			t.Fatalf("%q cut %v, after %d bytes: stream view %s bytes=%d, peek %s bytes=%d\nchanges %v",
				x, cuts, end, view.String(), s.Bytes(), p.Value, p.Bytes, run.Changes)
		}
	}
	for _, c := range cuts {
		if c >= last && c <= len(x) {
			step(c)
		}
	}
	step(len(x))
	feed(sealgate.EndEvent(attempt, "0"))
	feed(sealgate.CloseEvent(attempt, sealgate.Complete))
	apply()
	if view.String() != "-" || run.Changes[len(run.Changes)-1].Kind != gate.ChangeGone {
		t.Fatalf("%q: after close the stream shows %s, last change %v", x, view.String(), run.Changes[len(run.Changes)-1])
	}
	return run
}

// fatalOnly lends a TB to PreviewPaths.
type fatalOnly struct{ t fuzzkit.TB }

func (f fatalOnly) Fatal(args ...any) { f.t.Fatalf("%s", fmt.Sprint(args...)) }

func BytewiseCuts(n int) []int {
	cuts := make([]int, n)
	for i := range cuts {
		cuts[i] = i
	}
	return cuts
}
