package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// baselineTurns bounds the share of a turn go fuzz's baseline may take before
// the target's turns grow: its later turns last at least baselineTurns
// times the baseline they will start with.
const baselineTurns = 10

// turnLength is target t's next turn: -slice, or longer when the baseline
// (the last one's time per entry, times the entries the cache has now)
// would take more than a tenth of it. Rotating through the targets in
// equal slices pays each target's whole cached corpus again at every turn,
// and the corpus grows all night; a turn that grows with it keeps that
// re-run a fixed share of the time (docs/research/campaign.md measures it).
//
// A target's first turn is predicted from the time per entry an earlier
// campaign saved beside the cache (baselineFile), and the entries in the
// cache now. No turn is longer than an equal share of the fuzzing time (or
// -slice, if longer), so every target still gets its turns.
func (c *campaign) turnLength(t string) time.Duration {
	if c.fixed {
		return c.slice
	}
	var predicted time.Duration
	if st := c.stats[t]; st != nil && st.perBase > 0 {
		predicted = st.perBase * time.Duration(max(st.nextInputs, 1))
	} else if g, ok := c.guess[t]; ok {
		predicted = g
	}
	return min(max(c.slice, baselineTurns*predicted), c.fairTurn())
}

// baselineFile, in a package's fuzz cache folder beside the targets'
// folders (go fuzz reads only those), keeps each target's last baseline
// time per entry: "FuzzName NANOSECONDS" lines.
const baselineFile = "sealfuzz-baseline.txt"

// loadGuesses predicts each target's first baseline from baselineFile and
// the entries its cache has now.
func (c *campaign) loadGuesses() {
	c.guess = map[string]time.Duration{}
	for _, t := range c.targets {
		p := c.where[t]
		name := t[strings.LastIndex(t, "/")+1:]
		b, err := os.ReadFile(filepath.Join(p.cache, baselineFile))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) != 2 || f[0] != name {
				continue
			}
			per, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || per <= 0 {
				continue
			}
			if ents, err := cacheEntries(filepath.Join(p.cache, name)); err == nil {
				c.guess[t] = time.Duration(per) * time.Duration(max(len(ents), 1))
			}
		}
	}
}

// saveBaseline records a target's baseline time per entry for the next
// campaign; a failure to write only loses that prediction.
func (c *campaign) saveBaseline(p *fuzzPkg, name string, per time.Duration) {
	path := filepath.Join(p.cache, baselineFile)
	var keep []string
	if b, err := os.ReadFile(path); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] != name {
				keep = append(keep, l)
			}
		}
	}
	keep = append(keep, fmt.Sprintf("%s %d", name, per.Nanoseconds()))
	if err := os.MkdirAll(p.cache, 0o755); err == nil {
		_ = os.WriteFile(path, []byte(strings.Join(keep, "\n")+"\n"), 0o644)
	}
}
