package power

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sealgate/sealgate/internal/zoo"
)

// TestChartNothingFound: a power run in which no technique found any bug
// (bugs the generators miss) still draws its chart; an empty log axis
// used to panic.
func TestChartNothingFound(t *testing.T) {
	p := &power{techs: map[string]bool{"rapid": true}, bugs: []zoo.Bug{zoo.FirstSecretPerMember},
		runs: []powerRun{{bug: zoo.FirstSecretPerMember.Name, tech: "rapid", seed: 1}}}
	path := filepath.Join(t.TempDir(), "power.png")
	if err := p.chart(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("no chart written: %v", err)
	}
}
