package gate

import (
	"path/filepath"
	"strings"
	"testing"

	"sealgate"
	"sealgate/scn"
)

// Every scenario of the corpus, run through the gate, gives exactly its
// expected decisions (a refused configuration expects the single line @0
// refused).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("../corpus/*/*.scn")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no corpus files")
	}
	ran := 0
	for _, f := range files {
		sc, err := scn.ParseFile(f)
		if err != nil {
			// The file's own problem, for the scn and corpus tests to report.
			t.Logf("skipped: %v", err)
			continue
		}
		ran++
		var got []sealgate.Decision
		cfg, err := sc.Config()
		var g *Gate
		if err == nil {
			g, err = New(cfg, NewMemoryLedger())
		}
		if err != nil {
			got = []sealgate.Decision{{Kind: sealgate.Refused, Text: err.Error()}}
		} else {
			for _, ev := range sc.Events {
				ds, err := g.Feed(ev)
				if err != nil {
					t.Errorf("%s: %v", f, err)
					break
				}
				got = append(got, ds...)
			}
		}
		if !sameDecisions(got, sc.Expect) {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", f, lines(got), lines(sc.Expect))
		}
	}
	t.Logf("%d of %d scenarios run", ran, len(files))
}

func sameDecisions(a, b []sealgate.Decision) bool {
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

func lines(ds []sealgate.Decision) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}
