package reduce

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sealgate/sealgate/internal/zoo"
)

func TestAblExplore(t *testing.T) {
	if os.Getenv("ABL") == "" {
		t.Skip()
	}
	for _, p := range Passes {
		var hit []string
		for _, b := range zoo.All {
			s, _ := loadScenario(t, filepath.Join(minimalDir, b.Name+".scn"))
			for _, st := range starts(t, b) {
				err := b.Checker().All(st.cfg, st.events)
				res, _ := Reduce(st.cfg, st.events, b.Checker().All, Options{MaxTries: reduceTries, Off: []string{p}})
				if u := unlike(res.Config, res.Events, s.Events, kind(err), b.Checker().All); len(u) > 0 {
					hit = append(hit, b.Name+"/"+st.name[:4]+": "+u[0])
				}
			}
		}
		t.Logf("%s: %d %v", p, len(hit), hit)
	}
}
