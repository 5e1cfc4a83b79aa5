package coverage

import (
	"fmt"
	"io"
	"math/rand"
	"sort"
	"strings"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

// Budget is how much of each generated layer a coverage run measures, and
// the corpus it reads.
type Budget struct {
	Seeds, Runs int    // rapid: seeds 1..Seeds, Runs runs per seed
	Gofuzz      int    // inputs of FuzzGateVsModel's gofuzz reading
	GofuzzSeed  int64  // their math/rand seed
	Corpus      string // the scenario folder
}

// Run measures the three layers (the rapid machine, the gofuzz reading of
// FuzzGateVsModel, the corpus), prints the share of the reachable feature
// pairs each reached, the pairs never reached (each listed when list is
// set), and the pairs the SPEC makes unreachable. It returns the problems
// found: a failed measurement, a feature set the SPEC calls impossible, or
// generated layers below minShare percent of the reachable pairs.
func Run(b Budget, minShare float64, list bool, w io.Writer) []error {
	start := time.Now()
	layers, err := measure(b)
	if err != nil {
		return []error{err}
	}
	generated := Merge("generated", layers[0], layers[1])
	all := Merge("all", layers[0], layers[1], layers[2])
	report(w, b, append(layers, generated, all), generated, layers[2], list, time.Since(start))
	problems := all.Contradictions()
	if r, of := generated.Share(); Percent(r, of) < minShare {
		problems = append(problems, fmt.Errorf("the generated layers reach %.1f%% of the reachable pairs, below -min %.1f", Percent(r, of), minShare))
	}
	return problems
}

// measure tallies the three layers: rapid, gofuzz, corpus.
func measure(b Budget) ([]*Tally, error) {
	count := func(t *Tally) func(sealgate.Config, []sealgate.Event) {
		return func(cfg sealgate.Config, evs []sealgate.Event) {
			ds := model.Run(cfg, evs)
			t.Add(Extract(cfg, evs, ds), Refused(ds))
		}
	}
	rapidT := NewTally("rapid")
	for seed := 1; seed <= b.Seeds; seed++ {
		if err := machine.Observe(check.Default, uint64(seed), b.Runs, count(rapidT)); err != nil {
			return nil, fmt.Errorf("rapid seed %d: a run failed its checks: %v", seed, err)
		}
	}
	gofuzzT := NewTally("gofuzz")
	r := rand.New(rand.NewSource(b.GofuzzSeed))
	see := count(gofuzzT)
	for i := 0; i < b.Gofuzz; i++ {
		data := gofuzzInput(r)
		cfg, evs, ok := gen.Input(data)
		if !ok || len(evs) > fuzztarget.MaxEvents {
			continue // the fuzz body skips these too
		}
		see(cfg, evs)
	}
	corpusT := NewTally("corpus")
	files, err := scn.Files(b.Corpus)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			return nil, err
		}
		cfg, err := s.Config()
		if err != nil {
			corpusT.Add(nil, true)
			continue
		}
		count(corpusT)(cfg, s.Events)
	}
	return []*Tally{rapidT, gofuzzT, corpusT}, nil
}

// gofuzzInput is one input of FuzzGateVsModel's gofuzz reading, shaped as
// fuzzkit.Seeds shapes that reading's generic seeds: 64 to 511 pseudo-random
// bytes, the first one 0 (the gofuzz reading).
func gofuzzInput(r *rand.Rand) []byte {
	b := make([]byte, 64+r.Intn(448))
	r.Read(b)
	b[0] = 0
	return b
}

// report writes the coverage tables.
func report(w io.Writer, b Budget, tallies []*Tally, generated, corpus *Tally, list bool, took time.Duration) {
	catalog := Catalog()
	reachable := Reachable()
	unreachable := UnreachablePairs()
	fmt.Fprintf(w, "sealfuzz coverage: %d features in %d groups; %d pairs across groups, %d unreachable by the SPEC, %d reachable\n",
		len(catalog), groupCount(catalog), len(AllPairs()), len(unreachable), len(reachable))
	fmt.Fprintf(w, "budget: rapid seeds 1..%d x %d runs, %d gofuzz inputs (seed %d), corpus %s; took %s\n\n",
		b.Seeds, b.Runs, b.Gofuzz, b.GofuzzSeed, b.Corpus, took.Round(100*time.Millisecond))
	fmt.Fprintf(w, "%-10s %10s %8s %10s %16s %8s\n", "layer", "scenarios", "refused", "features", "reachable pairs", "share")
	for _, t := range tallies {
		r, of := t.Share()
		fmt.Fprintf(w, "%-10s %10d %8d %5d/%-4d %9d/%-6d %7.1f%%\n", t.Name, t.Scenarios, t.Refused,
			len(t.Features), len(catalog), r, of, Percent(r, of))
	}
	fmt.Fprintf(w, "\nthe pairs issue 17 names (x: reached):\n")
	fmt.Fprintf(w, "  %-62s %5s %6s %6s\n", "pair", "rapid", "gofuzz", "corpus")
	for _, wp := range Watched {
		mark := func(t *Tally) string {
			if t.Pairs[wp.Pair] {
				return "x"
			}
			return "-"
		}
		fmt.Fprintf(w, "  %-62s %5s %6s %6s  %s\n", wp.Pair, mark(tallies[0]), mark(tallies[1]), mark(tallies[2]), wp.Why)
	}
	var never []string
	for _, s := range catalog {
		if !generated.Features[s.Name] {
			mark := ""
			if corpus.Features[s.Name] {
				mark = " (corpus has it)"
			}
			never = append(never, "  "+string(s.Name)+mark+": "+s.Means)
		}
	}
	fmt.Fprintf(w, "\nfeatures the generated layers never reach (%d):\n%s\n", len(never), strings.Join(never, "\n"))
	missed := generated.Missed()
	both := 0
	for _, p := range missed {
		if generated.Features[p.A] && generated.Features[p.B] {
			both++
		}
	}
	fmt.Fprintf(w, "\nreachable pairs the generated layers never reach: %d (%d with a feature they never reach, %d of two features they reach apart)",
		len(missed), len(missed)-both, both)
	if list {
		// Grouped by their first feature; a pair the corpus reaches is
		// marked with *.
		fmt.Fprintln(w, " (by first feature; * the corpus reaches it)")
		byA := map[Feature][]string{}
		var as []Feature
		for _, p := range missed {
			if byA[p.A] == nil {
				as = append(as, p.A)
			}
			name := string(p.B)
			if corpus.Pairs[p] {
				name += "*"
			}
			byA[p.A] = append(byA[p.A], name)
		}
		sort.Slice(as, func(i, j int) bool { return as[i] < as[j] })
		for _, a := range as {
			fmt.Fprintf(w, "  %s × %s\n", a, strings.Join(byA[a], " "))
		}
	} else {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nunreachable pairs (%d), each with the SPEC text that makes it so:\n", len(unreachable))
	for _, u := range Unreachable {
		var ps []string
		for _, p := range u.Pairs() {
			ps = append(ps, p.String())
		}
		fmt.Fprintf(w, "  %s\n    because %s (SPEC section %s:", strings.Join(ps, "; "), u.Why, u.Section)
		for _, q := range u.Quotes {
			fmt.Fprintf(w, " %q", q)
		}
		fmt.Fprintln(w, ")")
	}
}

func groupCount(c []Spec) int {
	gs := map[Group]bool{}
	for _, s := range c {
		gs[s.Group] = true
	}
	return len(gs)
}
